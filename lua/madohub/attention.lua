---Terminals that need the user: a notification when one out of sight becomes Waiting, Completed,
---Failed or Stopped, and :MadoJump to the one that most recently did.
local config = require('madohub.config')

local M = {}

---Buffers that needed attention, the most recent last.
---@type integer[]
local wanted = {}

---@param buf integer
---@return boolean
local function visible_here(buf)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return true
    end
  end
  return false
end

---@param buf integer
local function remember(buf)
  for i = #wanted, 1, -1 do
    if wanted[i] == buf then
      table.remove(wanted, i)
    end
  end
  wanted[#wanted + 1] = buf
end

---A turn's end, however it was told (the screen's Stopped, then the transcript's Completed).
local ENDED = { stopped = true, completed = true, failed = true }

---Called by the state cache when a terminal's state changed.
---@param buf integer
---@param st madohub.State
---@param previous madohub.StateName
function M.changed(buf, st, previous)
  local opts = config.options.notify
  -- One notification per need: the end of a turn confirmed after the screen showed it is the same.
  if not opts.states[st.state] or (ENDED[st.state] and ENDED[previous]) then
    return
  end
  remember(buf)
  if not opts.enabled or visible_here(buf) then
    return
  end
  local label = require('madohub.state').agent_name(st.agent)
  local word = config.options.words[st.state] or st.state
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':t')
  local level = (st.state == 'waiting' or st.state == 'failed') and vim.log.levels.WARN or vim.log.levels.INFO
  vim.notify(('madohub: %s is %s in buffer %d (%s)'):format(label, word, buf, name), level, { title = 'madohub' })
end

---@param buf integer
function M.forget(buf)
  for i = #wanted, 1, -1 do
    if wanted[i] == buf then
      table.remove(wanted, i)
    end
  end
end

---:MadoJump — to the terminal that most recently needed attention: its window in this tab, else
---in another tab, else a new split.
function M.jump()
  local buf
  while #wanted > 0 do
    local last = wanted[#wanted]
    if vim.api.nvim_buf_is_valid(last) then
      buf = last
      break
    end
    wanted[#wanted] = nil
  end
  if not buf then
    vim.notify('madohub: no terminal needs attention', vim.log.levels.INFO)
    return
  end
  local wins = vim.fn.win_findbuf(buf)
  table.sort(wins, function(a, b)
    local here = vim.api.nvim_get_current_tabpage()
    return (vim.api.nvim_win_get_tabpage(a) == here) and not (vim.api.nvim_win_get_tabpage(b) == here)
  end)
  if wins[1] then
    vim.api.nvim_set_current_tabpage(vim.api.nvim_win_get_tabpage(wins[1]))
    vim.api.nvim_set_current_win(wins[1])
  else
    vim.cmd('sbuffer ' .. buf)
  end
end

return M
