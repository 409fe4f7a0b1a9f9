---:MadoAgents — the floating fleet picker: every agent (this Neovim's terminals, background jobs,
---Claude Code sessions elsewhere, other Neovims' terminals) in groups, live, with a peek pane and an
---input line (a new job, a reply, a filter, a name). It reads the fleet's Lua cache (never waits on
---Node) and redraws when the fleet changes. Here: its windows' life and the list; view.lua groups
---and orders, format.lua draws a row, actions.lua is what the keys do (kinds/ what they do to each
---kind of entry), peek.lua, input.lua and help.lua are its other panes, windows.lua its windows'
---making and closing, layout.lua where they go, store.lua what it keeps.
local config = require('madohub.config')
local fleet = require('madohub.fleet')
local format = require('madohub.picker.format')
local store = require('madohub.picker.store')
local util = require('madohub.util')
local view = require('madohub.picker.view')
local windows = require('madohub.picker.windows')

local M = {}
local H = {}

---@class madohub.Picker
---@field list_win integer
---@field list_buf integer
---@field input_win integer
---@field input_buf integer
---@field peek_win integer|nil
---@field peek_buf integer|nil
---@field help_win integer|nil
---@field rows madohub.PickerRow[]
---@field selected string|nil The selected row: an entry's id, or `group:<key>`.
---@field ui madohub.PickerUi
---@field input { mode: "new"|"reply"|"filter"|"rename", target: string|nil, attach: boolean }
---@field peek_id string|nil The entry the peek pane shows.
---@field followed integer|nil The terminal buffer whose changes redraw the peek pane.
---Jobs' screens as last fetched.
---@field job_screens table<string, { key: string, lines: string[], fetching: boolean|nil }>
---@field last_stop { id: string, at: number }|nil
---@field unsubscribe fun()
---@field timer uv_timer_t
---@field scheduled boolean
---@field saved madohub.PickerSaved
---@field origin_win integer The window it was opened from (the cursor goes back there on close).

---@type madohub.Picker|nil
M.current = nil

---The picker's seen marks outlive it (for this Neovim): they are attention's (the counts use them).
---@type table<string, number>
local seen = require('madohub.attention').seen

local ns = vim.api.nvim_create_namespace('madohub.picker')
local AGE_REFRESH_MS = 60 * 1000

local function names(agent)
  return require('madohub.state').agent_name(agent)
end

---@param p madohub.Picker
---@return boolean
function H.valid(p)
  return vim.api.nvim_win_is_valid(p.list_win) and vim.api.nvim_buf_is_valid(p.list_buf)
end

---Draws the list from the fleet as it is now, keeping the selection.
---@param p madohub.Picker
function M.render(p)
  p.scheduled = false
  if not H.valid(p) then
    return
  end
  local words = config.options.words
  local entries = fleet.all()
  local built = view.build(entries, p.ui, names, words)
  p.rows = built.rows
  local width = vim.api.nvim_win_get_width(p.list_win)
  local lines = format.lines(built.rows, width, util.now_ms(), p.ui, names)
  local text = {}
  for i, l in ipairs(lines) do
    text[i] = l.text
  end
  if #text == 0 then
    text[1] = p.ui.filter ~= '' and ('  nothing matches “%s”'):format(p.ui.filter)
      or '  no agents yet: n starts one'
  end
  vim.bo[p.list_buf].modifiable = true
  vim.api.nvim_buf_set_lines(p.list_buf, 0, -1, false, text)
  vim.bo[p.list_buf].modifiable = false
  vim.api.nvim_buf_clear_namespace(p.list_buf, ns, 0, -1)
  for i, l in ipairs(lines) do
    for _, m in ipairs(l.marks) do
      vim.api.nvim_buf_set_extmark(p.list_buf, ns, i - 1, m[1], { end_col = math.min(m[2], #l.text), hl_group = m[3] })
    end
  end
  local title = (' Agents · %s '):format(built.header)
  -- What the agents spent today (|madohub-usage|).
  local today = require('madohub.usage').today()
  if today ~= '' then
    title = title .. ('· %s '):format(today)
  end
  local hidden = fleet.not_shown.editorsNotShown
  if hidden > 0 then
    title = title .. ('· %d other Neovim%s not shown '):format(hidden, hidden == 1 and '' or 's')
  end
  if p.ui.filter ~= '' then
    title = title .. ('· %d shown · /%s '):format(built.shown, p.ui.filter)
  end
  vim.api.nvim_win_set_config(p.list_win, { title = title, title_pos = 'center' })
  H.restore_cursor(p)
  if p.peek_win then
    require('madohub.picker.peek').draw(p)
  end
end

---How long the fleet's changes gather before the list is drawn again: one redraw a frame however
---many agents change (a busy fleet would draw it once per change), and the change's winbar and
---`state()` never wait for it.
local REDRAW_GATHER_MS = 25

---Redraws soon (changes that come together draw once).
---@param p madohub.Picker
function M.schedule(p)
  if p.scheduled then
    return
  end
  p.scheduled = true
  vim.defer_fn(function()
    if M.current == p then
      M.render(p)
    end
  end, REDRAW_GATHER_MS)
end

---@param p madohub.Picker
function H.restore_cursor(p)
  -- The selected row gone (its group emptied, its entry ended): the cursor stays where it was on
  -- the screen, not at the top.
  local row = math.max(1, math.min(vim.api.nvim_win_get_cursor(p.list_win)[1], #p.rows))
  if not p.selected then
    row = 1
  end
  for i, r in ipairs(p.rows) do
    local id = r.entry and r.entry.id or ('group:' .. r.group)
    if id == p.selected then
      row = i
      break
    end
    if not p.selected and r.entry then
      row = i
      break
    end
  end
  if vim.api.nvim_win_get_cursor(p.list_win)[1] ~= row then
    pcall(vim.api.nvim_win_set_cursor, p.list_win, { row, 0 })
  end
  H.remember(p, row)
end

---@param p madohub.Picker
---@param row integer
function H.remember(p, row)
  local r = p.rows[row]
  if r then
    p.selected = r.entry and r.entry.id or ('group:' .. r.group)
  end
end

---The row under the cursor.
---@param p madohub.Picker
---@return madohub.PickerRow|nil
function M.row(p)
  return p.rows[vim.api.nvim_win_get_cursor(p.list_win)[1]]
end

---The entry under the cursor (the fleet's copy as it is now).
---@param p madohub.Picker
---@return madohub.FleetEntry|nil
function M.entry(p)
  local r = M.row(p)
  return r and r.entry and fleet.find(r.entry.id)
end

---Moves the cursor by `step` rows.
---@param p madohub.Picker
---@param step integer
function M.move(p, step)
  local row = vim.api.nvim_win_get_cursor(p.list_win)[1] + step
  row = math.max(1, math.min(#p.rows, row))
  vim.api.nvim_win_set_cursor(p.list_win, { row, 0 })
  H.remember(p, row)
  if p.peek_win then
    require('madohub.picker.peek').draw(p)
  end
end

---Says something in the message area and, while the picker is open, in its input window's footer
---(where it stays until the next thing it says: leaving Insert mode clears the message area).
---@param msg string
---@param level integer|nil
function M.say(msg, level)
  local p = M.current
  if p and vim.api.nvim_win_is_valid(p.input_win) then
    local width = vim.api.nvim_win_get_width(p.input_win) - 4
    local text = format.fit(msg, math.max(1, math.min(width, vim.fn.strdisplaywidth(msg))))
    local group = (level or 0) >= vim.log.levels.WARN and 'WarningMsg' or 'FloatFooter'
    pcall(vim.api.nvim_win_set_config, p.input_win, { footer = { { ' ' .. text .. ' ', group } }, footer_pos = 'left' })
  end
  util.notify(msg, level)
end

---@param p madohub.Picker
function H.map_list(p)
  local actions = require('madohub.picker.actions')
  for key, action in pairs(config.options.picker.keys) do
    if action then
      vim.keymap.set('n', key, function()
        actions.run(p, action, key)
      end, { buffer = p.list_buf, nowait = true, silent = true, desc = 'MadoAgents: ' .. action })
    end
  end
  vim.api.nvim_create_autocmd('CursorMoved', {
    buffer = p.list_buf,
    callback = function()
      H.remember(p, vim.api.nvim_win_get_cursor(p.list_win)[1])
      if p.peek_win then
        require('madohub.picker.peek').draw(p)
      end
    end,
  })
end

---Places the list (narrower beside the peek pane) and the input line.
---@param p madohub.Picker
---@param peek boolean|nil
function M.relayout(p, peek)
  windows.place(p, peek or p.peek_win ~= nil)
  M.render(p)
end

--- Open and close ---------------------------------------------------------------------------------

---Opens the picker (or focuses it when open).
function M.open()
  if M.current and H.valid(M.current) then
    vim.api.nvim_set_current_win(M.current.list_win)
    return
  end
  if M.current then
    -- A picker whose list went (`:close`, `<C-w>o`): what is left of it goes before a new one opens.
    M.close()
  end
  require('madohub').boot()
  require('madohub.node').ensure()
  local saved = store.load()
  local cwd = vim.fn.getcwd()
  ---@type madohub.Picker
  local p = {
    rows = {},
    ui = { group_by = saved.group_by, folded = saved.folded, filter = saved.filters[cwd] or '', seen = seen, cwd = cwd },
    input = { mode = 'new', attach = false },
    job_screens = {},
    saved = saved,
    scheduled = false,
    origin_win = vim.api.nvim_get_current_win(),
  } --[[@as madohub.Picker]]
  local select = vim.env.MADOHUB_AGENTS_SELECT
  if select and select ~= '' then
    p.selected = select
    vim.env.MADOHUB_AGENTS_SELECT = nil
  end
  windows.create(p)
  M.current = p
  H.map_list(p)
  require('madohub.picker.input').map(p)
  require('madohub.picker.input').placeholder(p)
  p.unsubscribe = fleet.subscribe(function()
    M.schedule(p)
  end)
  -- Ages read in minutes: one redraw a minute keeps them true (nothing else wakes while idle).
  p.timer = vim.uv.new_timer()
  p.timer:start(AGE_REFRESH_MS, AGE_REFRESH_MS, function()
    vim.schedule(function()
      if M.current == p then
        M.render(p)
      end
    end)
  end)
  windows.follow(p, {
    -- The user went to another window: the picker closes, the focus stays there.
    left = function(win)
      if M.current == p then
        M.close(win)
      end
    end,
    closed = function()
      if M.current == p then
        M.close()
      end
    end,
    resized = function()
      if M.current == p then
        M.relayout(p)
      end
    end,
  })
  M.render(p)
end

---Closes the picker (every window of it) and keeps its state (grouping, folded groups, this folder's
---filter).
---@param left_for integer|nil The window the user went to, which closed it (focus stays there).
function M.close(left_for)
  local p = M.current
  if not p then
    return
  end
  M.current = nil
  windows.unfollow()
  p.unsubscribe()
  p.timer:stop()
  p.timer:close()
  p.saved.group_by = p.ui.group_by
  p.saved.folded = p.ui.folded
  p.saved.filters[p.ui.cwd] = p.ui.filter
  store.save(p.saved)
  if vim.api.nvim_get_mode().mode:sub(1, 1) == 'i' then
    vim.cmd('stopinsert')
  end
  windows.close(p)
  -- Closed by a key or a command: back to the window it was opened from (not when the user went to
  -- another window, which closed it).
  if not left_for and p.origin_win and vim.api.nvim_win_is_valid(p.origin_win) then
    pcall(vim.api.nvim_set_current_win, p.origin_win)
  end
end

return M
