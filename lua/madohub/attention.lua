---Agents that need the user: a notification when a terminal out of sight, or a background job,
---becomes Waiting, Completed, Failed or Stopped, and :MadoJump to the one that most recently did.
local config = require('madohub.config')

local M = {}

---What needed attention, the most recent last: a terminal buffer (a number) or a job (`job:<id>`).
---@type (integer|string)[]
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

---@param target integer|string
local function remember(target)
  for i = #wanted, 1, -1 do
    if wanted[i] == target then
      table.remove(wanted, i)
    end
  end
  wanted[#wanted + 1] = target
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
  -- The terminal's name as the picker shows it (the user's, from R, or its agent and folder).
  local entry = require('madohub.fleet').find('term:' .. buf)
  local name = entry and entry.name or ('buffer ' .. buf)
  local level = (st.state == 'waiting' or st.state == 'failed') and vim.log.levels.WARN or vim.log.levels.INFO
  vim.notify(('madohub: %s is %s in buffer %d (%s) — :MadoJump'):format(label, word, buf, name), level, { title = 'madohub' })
end

---Called by the fleet cache when a job's state changed (not for the states it had when first seen).
---@param e madohub.FleetEntry
---@param previous madohub.StateName
function M.job_changed(e, previous)
  local opts = config.options.notify
  if not opts.states[e.state] or (ENDED[e.state] and ENDED[previous]) then
    return
  end
  remember(e.id)
  -- A job attached in a window of this tab is in sight.
  local buf = require('madohub.util').value(e.buf)
  if not opts.enabled or (buf and visible_here(buf)) then
    return
  end
  local label = require('madohub.state').agent_name(e.agent)
  local word = config.options.words[e.state] or e.state
  local asks = type(e.needs) == 'table' and e.needs.question or ''
  local level = (e.state == 'waiting' or e.state == 'failed') and vim.log.levels.WARN or vim.log.levels.INFO
  vim.notify(
    ('madohub: %s is %s in job %s (%s)%s — :MadoJump'):format(label, word, e.short, e.name, asks ~= '' and (': ' .. asks:sub(1, 80)) or ''),
    level,
    { title = 'madohub' }
  )
end

---@param buf integer
function M.forget(buf)
  for i = #wanted, 1, -1 do
    if wanted[i] == buf then
      table.remove(wanted, i)
    end
  end
end

---The job `id` (`job:<id>`) still in the fleet, or nil.
---@param id string
---@return madohub.FleetEntry|nil
local function job_entry(id)
  return require('madohub.fleet').get({ id = id })[1]
end

---:MadoJump — to the terminal or job that most recently needed attention: its window in this tab,
---else in another tab, else a new split (a job not attached yet is attached).
function M.jump()
  local buf
  while #wanted > 0 do
    local last = wanted[#wanted]
    if type(last) == 'string' then
      local e = job_entry(last)
      if e then
        buf = require('madohub.util').value(e.buf)
        if not buf then
          return require('madohub.jobs').attach(e.short)
        end
        break
      end
    elseif vim.api.nvim_buf_is_valid(last) then
      buf = last
      break
    end
    wanted[#wanted] = nil
  end
  if not buf then
    vim.notify('madohub: no terminal or job needs attention', vim.log.levels.INFO)
    return
  end
  require('madohub').show_terminal(buf)
end

return M
