---Puts the label in the winbar of terminal windows and colours those windows. Windows that do not
---show a tracked terminal are left as they are; a window that stops showing one gets back the
---winbar and highlights it had. One timer animates Working and ticks the time, and it runs only
---while a window of the current tab page shows a tracked terminal.
local config = require('madohub.config')
local highlight = require('madohub.ui.highlight')
local label = require('madohub.ui.label')

local M = {}

M.WINBAR = "%{%v:lua.require'madohub.ui'.winbar()%}"

---Evaluated by the winbar option of the windows that show a tracked terminal.
---@return string
function M.winbar()
  local win = vim.g.statusline_winid or vim.api.nvim_get_current_win()
  local ok, buf = pcall(vim.api.nvim_win_get_buf, win)
  return ok and label.render(buf) or ''
end

---@param win integer
local function redraw_winbar(win)
  if not pcall(vim.api.nvim__redraw, { win = win, winbar = true }) then
    vim.cmd('redrawstatus!')
  end
end

---Brings one window in line with the buffer it shows.
---@param win integer
function M.sync_window(win)
  if not vim.api.nvim_win_is_valid(win) then
    return
  end
  local buf = vim.api.nvim_win_get_buf(win)
  local st = require('madohub.state').get(buf)
  local w = vim.w[win]
  if st then
    if config.options.winbar.enabled then
      local current = vim.api.nvim_get_option_value('winbar', { win = win, scope = 'local' })
      if current ~= M.WINBAR then
        w.madohub_prev_winbar = current
        vim.api.nvim_set_option_value('winbar', M.WINBAR, { win = win, scope = 'local' })
      end
    end
    if config.options.highlight.enabled then
      highlight.set_window(win, st.state)
      w.madohub_hl = true
    end
    return
  end
  if w.madohub_prev_winbar ~= nil then
    vim.api.nvim_set_option_value('winbar', w.madohub_prev_winbar, { win = win, scope = 'local' })
    w.madohub_prev_winbar = nil
  end
  if w.madohub_hl then
    highlight.set_window(win, nil)
    w.madohub_hl = nil
  end
end

---Windows of the current tab page that show a tracked terminal, and whether one is Working.
---@return integer[] wins
---@return boolean working
local function visible()
  local wins, working = {}, false
  local state = require('madohub.state')
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local st = state.get(vim.api.nvim_win_get_buf(win))
    if st then
      wins[#wins + 1] = win
      working = working or st.state == 'working'
    end
  end
  return wins, working
end

---@type uv_timer_t|nil
local timer
---@type integer
local timer_interval = 0

local set_timer

local function tick()
  local wins, working = visible()
  if working then
    label.frame = label.frame + 1
  end
  for _, win in ipairs(wins) do
    redraw_winbar(win)
  end
  set_timer(wins, working)
end

---@param wins integer[] visible windows of tracked terminals
---@param working boolean one of them is Working
set_timer = function(wins, working)
  local interval = 0
  if config.options.winbar.enabled and #wins > 0 then
    if working then
      interval = config.options.winbar.frame_ms
    elseif config.options.winbar.time then
      interval = 1000
    end
  end
  if interval == timer_interval then
    return
  end
  timer_interval = interval
  if timer then
    timer:stop()
  end
  if interval == 0 then
    return
  end
  timer = timer or assert(vim.uv.new_timer())
  timer:start(interval, interval, vim.schedule_wrap(tick))
end

---Runs the timer fast while a visible terminal is Working, slowly while one shows a time, never else.
function M.update_timer()
  set_timer(visible())
end

---@return boolean running
---@return integer interval
function M.timer_state()
  return timer_interval > 0, timer_interval
end

---Called with the buffers whose state changed.
---@param bufs integer[]
function M.refresh(bufs)
  for _, buf in ipairs(bufs) do
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      M.sync_window(win)
      redraw_winbar(win)
    end
  end
  M.update_timer()
end

---Brings every window of every tab page in line (after setup, or a buffer wiped).
function M.sync_all()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    M.sync_window(win)
  end
  M.update_timer()
end

function M.stop()
  if timer then
    timer:stop()
    timer:close()
    timer = nil
  end
  timer_interval = 0
end

return M
