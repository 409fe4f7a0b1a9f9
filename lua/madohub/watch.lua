---Watches terminal buffers: a Lua `on_lines` callback marks a buffer dirty, and a snapshot goes to
---Node at once while the buffer has credit: one snapshot per `watch.interval` ms, up to BURST kept
---(a spinner's frame does not hold back the change after it; a flood gets one per interval); per
---`watch.hidden_interval` ms while no window of the current tab page shows it (Neovim draws it not
---either), and by the in-sight interval at once when one comes to. A snapshot is what detection
---needs and no more: the visible rows, the title and the cursor row.
local config = require('madohub.config')
local node = require('madohub.node')

local M = {}

---@class madohub.Watched
---@field timer uv_timer_t Fires the deferred snapshot.
---@field scheduled boolean A snapshot is due.
---@field credit number Snapshots it may send now (BURST at most), as of `credit_at`.
---@field credit_at number When `credit` was counted (ms of the monotonic clock).
---@field rows integer The terminal's height when last seen in a window.
---@field exit_status integer|nil Set once the job ended.
---@field pid integer|nil The terminal job's pid (the root of its process tree).

---@type table<integer, madohub.Watched>
local watched = {}

---The snapshots a terminal may send back to back (after a quiet spell of BURST intervals).
local BURST = 2

---@param buf integer
---@return boolean
function M.is_watched(buf)
  return watched[buf] ~= nil
end

---@return integer
function M.count()
  return vim.tbl_count(watched)
end

---@return integer[]
function M.buffers()
  return vim.tbl_keys(watched)
end

---The terminal's height: the smallest window showing it (Neovim sizes the PTY so), else the last seen.
---@param buf integer
---@param w madohub.Watched
---@return integer
local function rows_of(buf, w)
  local rows
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    local h = vim.api.nvim_win_get_height(win)
    rows = rows and math.min(rows, h) or h
  end
  if rows then
    w.rows = rows
  end
  return w.rows
end

---The terminal cursor's row within the snapshot, when a window in Terminal mode shows it.
---@param buf integer
---@param first integer 0-based first row of the snapshot in the buffer
---@param count integer rows in the snapshot
---@return integer|nil
local function cursor_row(buf, first, count)
  local win = vim.api.nvim_get_current_win()
  if vim.api.nvim_win_get_buf(win) ~= buf or vim.api.nvim_get_mode().mode ~= 't' then
    return nil
  end
  local row = vim.api.nvim_win_get_cursor(win)[1] - 1 - first
  if row >= 0 and row < count then
    return row
  end
  return nil
end

---@param buf integer
---@return { buf: integer, lines: string[], title: string, cursor: integer|nil, pid: integer|nil }|nil
function M.snapshot(buf)
  local w = watched[buf]
  if not w or not vim.api.nvim_buf_is_valid(buf) then
    return nil
  end
  local total = vim.api.nvim_buf_line_count(buf)
  local first = math.max(0, total - rows_of(buf, w))
  local lines = vim.api.nvim_buf_get_lines(buf, first, total, false)
  while #lines > 0 and lines[#lines]:match('^%s*$') do
    lines[#lines] = nil
  end
  local title = vim.b[buf].term_title
  return {
    buf = buf,
    lines = lines,
    title = type(title) == 'string' and title or '',
    cursor = cursor_row(buf, first, #lines),
    pid = w.pid,
  }
end

---The sequences a terminal's program sends that may be desktop notifications: OSC 9, 777 and 99, and
---tmux's passthrough that a program run with $TMUX set wraps them in.
local NOTIFY = { '\27]9;', '\27]777;', '\27]99;', '\27Ptmux;' }

---A terminal's OSC or DCS request (|TermRequest|): a notification goes to the Node side, bounded, as
---it came (Node reads it); anything else is not ours.
---@param buf integer
---@param data string|{ sequence: string }|nil Neovim 0.10 gives the string, 0.11+ a table
function M.term_request(buf, data)
  if not watched[buf] then
    return
  end
  local seq = type(data) == 'table' and data.sequence or data
  if type(seq) ~= 'string' then
    seq = vim.v.termrequest
  end
  if type(seq) ~= 'string' then
    return
  end
  for _, prefix in ipairs(NOTIFY) do
    if seq:sub(1, #prefix) == prefix then
      node.notify('osc', { buf = buf, sequence = seq:sub(1, 1024) })
      return
    end
  end
end

---Whether a window of the current tab page shows `buf`.
---@param buf integer
---@return boolean
local function in_sight(buf)
  local tab = vim.api.nvim_get_current_tabpage()
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if vim.api.nvim_win_get_tabpage(win) == tab then
      return true
    end
  end
  return false
end

---One snapshot of `buf` per this many ms (BURST back to back at most).
---@param buf integer
---@return integer
local function interval_of(buf)
  local watch = config.options.watch
  return in_sight(buf) and watch.interval or math.max(watch.interval, watch.hidden_interval)
end

---The credit of `w` now: one snapshot per `interval` ms since it was counted, BURST at most.
---@param w madohub.Watched
---@param interval integer
---@return number
local function credit_now(w, interval)
  local now = vim.uv.hrtime() / 1e6
  w.credit = math.min(BURST, w.credit + (now - w.credit_at) / interval)
  w.credit_at = now
  return w.credit
end

---@param buf integer
function M.flush(buf)
  local w = watched[buf]
  if not w then
    return
  end
  w.scheduled = false
  -- A snapshot sent out of turn (the job's end) takes credit it may not have: none is owed.
  w.credit = math.max(0, credit_now(w, interval_of(buf)) - 1)
  local snap = M.snapshot(buf)
  if snap then
    node.notify('screen', snap)
  end
end

---Sends the due snapshot of `buf` now if it has the credit, else when it has.
---@param buf integer
---@param w madohub.Watched
local function plan(buf, w)
  local function flush()
    -- Not when flushed since (the job's end flushes at once).
    if w.scheduled then
      M.flush(buf)
    end
  end
  w.timer:stop()
  local interval = interval_of(buf)
  local wait = math.ceil((1 - credit_now(w, interval)) * interval)
  if wait <= 0 then
    flush()
  else
    -- The loop's clock, read at its turn's start, lags after a long turn (a terminal's flood): a timer
    -- started from it would fire early.
    vim.uv.update_time()
    w.timer:start(wait, 0, function()
      vim.schedule(flush)
    end)
  end
end

---Marks `buf` changed: a snapshot goes out at once while the terminal has credit, else when it has
---(see plan). Many changes while it waits make one snapshot.
---@param buf integer
function M.touch(buf)
  local w = watched[buf]
  if not w or w.scheduled or w.exit_status then
    return
  end
  w.scheduled = true
  -- On the loop's next turn: once the terminal's refresh is all in the buffer, and with the windows as
  -- the user has them (Neovim 0.10 runs a terminal's `on_lines` with a window of it made current).
  vim.schedule(function()
    if w.scheduled then
      plan(buf, w)
    end
  end)
end

---What is in sight changed (a window, a tab page): a terminal that comes into sight with a snapshot
---due later (its out-of-sight interval) gets it by its in-sight interval.
function M.sight_changed()
  for buf, w in pairs(watched) do
    if w.scheduled and vim.api.nvim_buf_is_valid(buf) and in_sight(buf) then
      plan(buf, w)
    end
  end
end

---Starts watching a terminal buffer (idempotent). Starts the Node process if it does not run.
---@param buf integer
function M.attach(buf)
  if watched[buf] or not vim.api.nvim_buf_is_valid(buf) or vim.bo[buf].buftype ~= 'terminal' then
    return
  end
  watched[buf] = {
    timer = assert(vim.uv.new_timer()),
    scheduled = false,
    credit = BURST,
    credit_at = vim.uv.hrtime() / 1e6,
    rows = vim.o.lines,
  }
  local ok, pid = pcall(vim.fn.jobpid, vim.bo[buf].channel)
  watched[buf].pid = ok and pid > 0 and pid or nil
  vim.api.nvim_buf_attach(buf, false, {
    on_lines = function()
      if not watched[buf] then
        return true
      end
      M.touch(buf)
    end,
  })
  if not node.running() then
    node.start()
  end
  M.touch(buf)
end

---The job in `buf` ended: the last screen, then the exit status.
---@param buf integer
---@param status integer
function M.exited(buf, status)
  local w = watched[buf]
  if not w then
    return
  end
  w.timer:stop()
  M.flush(buf)
  w.exit_status = status
  node.notify('exit', { buf = buf, status = status })
end

---Forgets a wiped buffer.
---@param buf integer
function M.forget(buf)
  local w = watched[buf]
  if not w then
    return
  end
  watched[buf] = nil
  w.timer:stop()
  w.timer:close()
  node.notify('forget', { buf = buf })
  require('madohub.state').forget(buf)
end

---Sends every watched terminal again (after the Node process restarted).
function M.resync()
  for buf, w in pairs(watched) do
    if vim.api.nvim_buf_is_valid(buf) then
      M.flush(buf)
      if w.exit_status then
        node.notify('exit', { buf = buf, status = w.exit_status })
      end
    end
  end
end

---Stops every timer (VimLeavePre, or a new setup()).
function M.stop_all()
  for buf in pairs(watched) do
    M.forget(buf)
  end
end

return M
