---Agents that need you (|madohub-notify|). The Node side decides what is news (its attention
---engine); this module shows what it tells: the message, the notification and bell written to the
---terminal Neovim runs in, the title; it keeps the entries that came to need you for :MadoJump,
---tells the Node side what is in sight (the current tab page's windows, and the focus), and gives
---the counts of the statusline and the `User MadoAttention` event.
local config = require('madohub.config')

local M = {}

---What needed attention, the most recent last: a terminal buffer (a number) or a job (`job:<id>`).
---@type (integer|string)[]
local wanted = {}

---The entries muted, by id: `all`, or the states.
---@type table<string, 'all'|madohub.StateName[]>
M.mutes = {}

---The finished turns the user has seen: entry id → the `since` of the state seen (the picker's too).
---@type table<string, number>
M.seen = {}

---Whether Neovim has the focus: nil until its terminal tells (FocusGained, FocusLost).
---@type boolean|nil
local focused = nil

---@param target integer|string
local function remember(target)
  for i = #wanted, 1, -1 do
    if wanted[i] == target then
      table.remove(wanted, i)
    end
  end
  wanted[#wanted + 1] = target
end

---@class madohub.Notice
---@field message string The notice on one line.
---@field urgent boolean Waiting or Failed.
---@field jump string The entry it is about (the latest of a summary).
---@field osc string The notification for the terminal Neovim runs in ('' for none).
---@field bell boolean Ring the terminal's bell.

---Writes `bytes` to the terminal of Neovim's UI (the TUI): Neovim 0.12's nvim_ui_send, else its stderr,
---which the TUI's terminal is. Nothing without a UI.
---@param bytes string
local function to_terminal(bytes)
  if bytes == '' or #vim.api.nvim_list_uis() == 0 then
    return
  end
  if vim.api.nvim_ui_send then
    pcall(vim.api.nvim_ui_send, bytes)
  else
    pcall(vim.api.nvim_chan_send, 2, bytes)
  end
end

---`text` cut to what the message area shows on one line (|v:echospace|), so that a notice never
---stops the editor at a hit-enter prompt (the whole of it goes to the desktop and the terminal).
---@param text string
---@return string
local function one_line(text)
  local room = math.max(vim.v.echospace - 1, 20)
  if vim.fn.strdisplaywidth(text) <= room then
    return text
  end
  return vim.fn.strcharpart(text, 0, room - 1) .. '…'
end

---The entries that came to need the user, and the notices the Node side tells, from one batch.
---@param ids string[]
---@param notices madohub.Notice[]
function M.apply(ids, notices)
  for _, id in ipairs(ids or {}) do
    remember(require('madohub.ids').term_buf(id) or id)
  end
  for _, n in ipairs(notices or {}) do
    vim.notify(
      one_line('madohub: ' .. n.message),
      n.urgent and vim.log.levels.WARN or vim.log.levels.INFO,
      { title = 'madohub' }
    )
    to_terminal(n.osc)
    if n.bell then
      to_terminal('\7')
    end
  end
end

---@param list { id: string, states: 'all'|madohub.StateName[] }[]
function M.set_mutes(list)
  M.mutes = {}
  for _, m in ipairs(list) do
    M.mutes[m.id] = m.states
  end
end

---@class madohub.Counts
---@field waiting integer Agents that wait for you.
---@field done integer Finished turns you have not seen.
---@field failed integer Failures you have not seen.
---@field total integer The three together.

---What a state counts as in what needs you ('waiting', 'done', 'failed'), or nil.
---@param state string
---@return string|nil
local function counts_as(state)
  local facts = require('madohub.states').of[state]
  return facts and facts.counts ~= '' and facts.counts or nil
end

---What needs you now, from the fleet's cache: the terminals and jobs of this Neovim's fleet.
---@return madohub.Counts
function M.counts()
  local c = { waiting = 0, done = 0, failed = 0, total = 0 }
  for _, e in ipairs(require('madohub.fleet').get()) do
    local key = counts_as(e.state)
    if key and (key == 'waiting' or M.seen[e.id] ~= e.since) then
      c[key] = c[key] + 1
      c.total = c.total + 1
    end
  end
  return c
end

---The counts in words: `2 waiting · 1 done` ('' when nothing needs you).
---@param c madohub.Counts|nil
---@return string
function M.text(c)
  c = c or M.counts()
  local parts = {}
  for _, key in ipairs({ 'waiting', 'done', 'failed' }) do
    if c[key] > 0 then
      parts[#parts + 1] = ('%d %s'):format(c[key], key)
    end
  end
  return table.concat(parts, ' · ')
end

---The last counts told (the event fires when they change).
local told = { waiting = 0, done = 0, failed = 0, total = 0 }
---The user's 'title' and 'titlestring' while the title says who needs you (nil: not changed).
---@type { title: boolean, titlestring: string, ours: string }|nil
local saved_title = nil

---The title says how many need you (`notify.terminal.title`); the user's own comes back after.
---@param c madohub.Counts
local function show_title(c)
  if not config.options.notify.terminal.title then
    return
  end
  if c.total == 0 then
    if saved_title and vim.o.titlestring == saved_title.ours then
      vim.o.titlestring = saved_title.titlestring
      vim.o.title = saved_title.title
    end
    saved_title = nil
    return
  end
  -- What the user has (or set meanwhile) stands after it.
  if not saved_title or vim.o.titlestring ~= saved_title.ours then
    saved_title = { title = vim.o.title, titlestring = vim.o.titlestring, ours = '' }
  end
  local words = c.total == 1 and '1 agent needs you' or ('%d agents need you'):format(c.total)
  vim.o.titlestring = words .. ' — ' .. (saved_title.titlestring ~= '' and saved_title.titlestring or '%t')
  saved_title.ours = vim.o.titlestring
  vim.o.title = true
end

---The buffers the current tab page shows.
---@return integer[]
local function in_sight()
  local bufs = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    bufs[#bufs + 1] = vim.api.nvim_win_get_buf(win)
  end
  return bufs
end

---A finished turn in sight while Neovim has the focus (or its terminal never said) is seen.
---@param bufs integer[]
---@return boolean marked Whether a turn became seen.
local function see(bufs)
  if focused == false then
    return false
  end
  local shown = {}
  for _, b in ipairs(bufs) do
    shown[b] = true
  end
  local marked = false
  for _, e in ipairs(require('madohub.fleet').get()) do
    if e.buf ~= vim.NIL and shown[e.buf] and counts_as(e.state) and M.seen[e.id] ~= e.since then
      M.seen[e.id] = e.since
      marked = true
    end
  end
  return marked
end

---The fleet's cache changed: the counts, the title and `User MadoAttention` follow (a turn that
---ends in sight is seen as it ends).
function M.refresh()
  -- What draws the rows (the picker's •) draws them again.
  if see(in_sight()) then
    require('madohub.fleet').seen_changed()
  end
  local c = M.counts()
  if c.waiting == told.waiting and c.done == told.done and c.failed == told.failed then
    return
  end
  told = c
  show_title(c)
  vim.api.nvim_exec_autocmds(
    'User',
    { pattern = 'MadoAttention', modeline = false, data = vim.tbl_extend('force', c, { text = M.text(c) }) }
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

local sight_pending = false
local gained = false

---Tells the Node side what is in sight, once the windows have settled (changes gather).
---@param focus_event "gained"|"lost"|nil
function M.sight_changed(focus_event)
  if focus_event == 'gained' then
    focused, gained = true, true
  elseif focus_event == 'lost' then
    focused = false
  end
  if sight_pending then
    return
  end
  sight_pending = true
  vim.schedule(function()
    sight_pending = false
    local node = require('madohub.node')
    local bufs = in_sight()
    M.refresh()
    node.notify('sight', { bufs = bufs, focused = focused, gained = gained })
    gained = false
  end)
end

---The job `id` (`job:<id>`) still in the fleet, or nil.
---@param id string
---@return madohub.FleetEntry|nil
local function job_entry(id)
  return require('madohub.fleet').get({ id = id })[1]
end

---Goes to an entry: its window in this tab, else in another tab, else a new split (a job not
---attached yet is attached). False when it is gone.
---@param target integer|string
---@return boolean
local function go(target)
  if type(target) == 'string' then
    local e = job_entry(target)
    if not e or e.kind ~= 'job' then
      return false
    end
    local buf = require('madohub.util').value(e.buf)
    if not buf then
      require('madohub.jobs').attach((e.host or '') ~= '' and (e.host .. ':' .. e.short) or e.short)
      return true
    end
    return require('madohub').show_terminal(buf)
  end
  return vim.api.nvim_buf_is_valid(target) and require('madohub').show_terminal(target)
end

---:MadoJump — to the terminal or job that most recently needed attention.
function M.jump()
  while #wanted > 0 do
    if go(wanted[#wanted]) then
      return
    end
    wanted[#wanted] = nil
  end
  vim.notify('madohub: no terminal or job needs attention', vim.log.levels.INFO)
end

---A desktop notification clicked ("Go there"): to its entry.
---@param id string
function M.jump_to(id)
  if not go(require('madohub.ids').term_buf(id) or id) then
    vim.notify(('madohub: %s is gone'):format(id), vim.log.levels.WARN)
  end
end

return M
