---:MadoAgents — the floating fleet picker: every agent (this Neovim's terminals, background jobs,
---Claude Code sessions elsewhere, other Neovims' terminals) in groups, live, with a peek pane and an
---input line (a new job, a reply, a filter, a name). It reads the fleet's Lua cache (never waits on
---Node) and redraws when the fleet changes; its actions are in actions.lua, its rows in view.lua
---and format.lua.
local config = require('madohub.config')
local fleet = require('madohub.fleet')
local format = require('madohub.picker.format')
local store = require('madohub.picker.store')
local util = require('madohub.util')
local view = require('madohub.picker.view')

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
---@field job_screens table<string, { key: string, lines: string[], fetching: boolean|nil }> Jobs' screens as last fetched.
---@field last_stop { id: string, at: number }|nil
---@field unsubscribe fun()
---@field timer uv_timer_t
---@field scheduled boolean
---@field saved madohub.PickerSaved

---@type madohub.Picker|nil
M.current = nil

---The picker's seen marks outlive it (for this Neovim).
---@type table<string, number>
local seen = {}

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

---The border: the option, else 'winborder' (Neovim 0.11+) when set, else rounded.
---@return string|string[]
function H.border()
  if config.options.picker.border then
    return config.options.picker.border
  end
  local ok, wb = pcall(function()
    return vim.o.winborder
  end)
  return (ok and type(wb) == 'string' and wb ~= '' and wb ~= 'none') and wb or 'rounded'
end

---@param n number
---@param total integer
---@param least integer
local function size(n, total, least)
  local v = n <= 1 and math.floor(total * n) or math.floor(n)
  return math.max(least, math.min(v, total - 2))
end

---The picker's geometry: the list (and the peek pane beside it when open), the input line below.
---@param peek boolean
function H.layout(peek)
  local cols, lines = vim.o.columns, vim.o.lines - vim.o.cmdheight
  local w = size(config.options.picker.width, cols - 2, 40)
  local h = size(config.options.picker.height, lines - 2, 8)
  local top = math.max(0, math.floor((lines - h) / 2) - 1)
  local left = math.max(0, math.floor((cols - w) / 2) - 1)
  local list_h = math.max(1, h - 3)
  local list_w = peek and math.max(20, math.floor(w * 0.5)) or w
  return {
    list = { row = top, col = left, width = list_w, height = list_h },
    peek = { row = top, col = left + list_w + 2, width = math.max(10, w - list_w - 2), height = list_h },
    input = { row = top + list_h + 2, col = left, width = w, height = 1 },
  }
end

---A scratch buffer of the picker.
---@param name string
---@return integer
function H.scratch(name)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = name
  return buf
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
  local lines = format.lines(built.rows, width, util.now_ms(), p.ui, names, words)
  local text = {}
  for i, l in ipairs(lines) do
    text[i] = l.text
  end
  if #text == 0 then
    text[1] = p.ui.filter ~= '' and ('  nothing matches “%s”'):format(p.ui.filter) or '  no agents yet: n starts one'
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
  if p.ui.filter ~= '' then
    title = title .. ('· %d shown · /%s '):format(built.shown, p.ui.filter)
  end
  vim.api.nvim_win_set_config(p.list_win, { title = title, title_pos = 'center' })
  H.restore_cursor(p)
  if p.peek_win then
    M.draw_peek(p)
  end
end

---Redraws soon (changes that come together draw once).
---@param p madohub.Picker
function M.schedule(p)
  if p.scheduled then
    return
  end
  p.scheduled = true
  vim.schedule(function()
    if M.current == p then
      M.render(p)
    end
  end)
end

---@param p madohub.Picker
function H.restore_cursor(p)
  local row = 1
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
    M.draw_peek(p)
  end
end

---Says something in the input window's footer and the message area.
---@param msg string
---@param level integer|nil
function M.say(msg, level)
  util.notify(msg, level)
end

--- Peek -------------------------------------------------------------------------------------------

---The lines the peek pane shows for `e` (the question first when it waits, then its screen).
---@param p madohub.Picker
---@param e madohub.FleetEntry
---@param height integer
---@return string[]
function H.peek_lines(p, e, height)
  local out = {}
  local words = config.options.words
  out[#out + 1] = ('%s · %s · %s · %s'):format(e.name, names(e.agent), words[e.state] or e.state, format.where(e))
  if e.cwd ~= '' then
    out[#out + 1] = vim.fn.fnamemodify(e.cwd, ':~')
  end
  if e.pending ~= '' then
    out[#out + 1] = 'reply: ' .. e.pending
  end
  if e.state == 'waiting' and type(e.needs) == 'table' then
    out[#out + 1] = ''
    out[#out + 1] = 'Asks: ' .. (e.needs.question or '')
    for i, o in ipairs(e.needs.options or {}) do
      out[#out + 1] = ('  %d. %s'):format(i, o)
    end
  end
  out[#out + 1] = string.rep('─', 20)
  local screen
  if e.kind == 'terminal' then
    local buf = tonumber(e.id:match('^term:(%d+)$'))
    local snap = buf and vim.api.nvim_buf_is_valid(buf) and require('madohub.watch').snapshot(buf)
    screen = snap and snap.lines or {}
  elseif e.kind == 'job' then
    local got = p.job_screens[e.id]
    screen = got and got.lines or { '(reading its screen…)' }
  else
    screen = { ('It runs %s: its screen is not shown here.'):format(e.kind == 'session' and ('elsewhere (' .. e.where .. ')') or ('in ' .. e.where)), e.detail }
  end
  while #screen > 0 and vim.trim(screen[#screen]) == '' do
    screen[#screen] = nil
  end
  local room = math.max(0, height - #out)
  for i = math.max(1, #screen - room + 1), #screen do
    out[#out + 1] = (screen[i]:gsub('%c', ' '))
  end
  return out
end

---Fetches a job's rendered screen from its host (through Node), when its entry changed since.
---@param p madohub.Picker
---@param e madohub.FleetEntry
function H.fetch_job_screen(p, e)
  local key = e.state .. '\0' .. e.detail .. '\0' .. e.since
  local got = p.job_screens[e.id]
  if got and (got.key == key or got.fetching) then
    return
  end
  p.job_screens[e.id] = { key = key, lines = got and got.lines or { '(reading its screen…)' }, fetching = true }
  require('madohub.node').call('screen', { id = e.id:sub(5) }, function(result, err)
    p.job_screens[e.id] = { key = key, lines = result and result.lines or { err and ('(' .. err .. ')') or '' } }
    if M.current == p and p.peek_win and p.peek_id == e.id then
      M.draw_peek(p)
    end
  end)
end

---Draws the peek pane for the selected entry.
---@param p madohub.Picker
function M.draw_peek(p)
  if not p.peek_win or not vim.api.nvim_win_is_valid(p.peek_win) then
    return
  end
  local e = M.entry(p)
  p.peek_id = e and e.id or nil
  local lines = { '(no agent on this row)' }
  if e then
    if e.kind == 'job' then
      H.fetch_job_screen(p, e)
    elseif e.kind == 'terminal' then
      H.follow_terminal(p, tonumber(e.id:match('^term:(%d+)$')))
    end
    lines = H.peek_lines(p, e, vim.api.nvim_win_get_height(p.peek_win))
    if e.state ~= 'waiting' or e.kind == 'job' or e.kind == 'terminal' then
      seen[e.id] = (view.unseen(e, p.ui) and e.since) or seen[e.id]
    end
  end
  vim.bo[p.peek_buf].modifiable = true
  vim.api.nvim_buf_set_lines(p.peek_buf, 0, -1, false, lines)
  vim.bo[p.peek_buf].modifiable = false
  vim.api.nvim_buf_clear_namespace(p.peek_buf, ns, 0, -1)
  vim.api.nvim_buf_set_extmark(p.peek_buf, ns, 0, 0, { end_row = 0, end_col = #lines[1], hl_group = 'Title' })
end

---Redraws the peek pane when the terminal it shows changes (its buffer's lines, coalesced).
---@param p madohub.Picker
---@param buf integer|nil
function H.follow_terminal(p, buf)
  if not buf or p.followed == buf or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  p.followed = buf
  local pending = false
  vim.api.nvim_buf_attach(buf, false, {
    on_lines = function()
      if M.current ~= p or p.followed ~= buf or not p.peek_win then
        if p.followed == buf then
          p.followed = nil
        end
        return true -- detach
      end
      if not pending then
        pending = true
        vim.defer_fn(function()
          pending = false
          if M.current == p and p.peek_id == 'term:' .. buf then
            M.draw_peek(p)
          end
        end, 50)
      end
    end,
  })
end

---@param p madohub.Picker
function M.toggle_peek(p)
  if p.peek_win then
    pcall(vim.api.nvim_win_close, p.peek_win, true)
    p.peek_win, p.peek_buf, p.peek_id, p.followed = nil, nil, nil, nil
    H.relayout(p)
    return
  end
  p.peek_buf = H.scratch('madohub_peek')
  H.relayout(p, true)
  local g = H.layout(true).peek
  p.peek_win = vim.api.nvim_open_win(p.peek_buf, false, {
    relative = 'editor', row = g.row, col = g.col, width = g.width, height = g.height,
    style = 'minimal', border = H.border(), title = ' Peek ', title_pos = 'center', zindex = 50,
  })
  vim.wo[p.peek_win].wrap = false
  M.draw_peek(p)
end

---Places the list (narrower beside the peek pane) and the input line.
---@param p madohub.Picker
---@param peek boolean|nil
function H.relayout(p, peek)
  local g = H.layout(peek or p.peek_win ~= nil)
  vim.api.nvim_win_set_config(p.list_win, { relative = 'editor', row = g.list.row, col = g.list.col, width = g.list.width, height = g.list.height })
  vim.api.nvim_win_set_config(p.input_win, { relative = 'editor', row = g.input.row, col = g.input.col, width = g.input.width, height = 1 })
  if p.peek_win and vim.api.nvim_win_is_valid(p.peek_win) then
    vim.api.nvim_win_set_config(p.peek_win, { relative = 'editor', row = g.peek.row, col = g.peek.col, width = g.peek.width, height = g.peek.height })
  end
  M.render(p)
end

--- Help -------------------------------------------------------------------------------------------

---The keys in force, by action, as `?` shows them (from the user's mappings).
---@return string[]
function M.help_lines()
  local keys = require('madohub.picker.keys')
  local by_action = {}
  for key, action in pairs(config.options.picker.keys) do
    if action then
      by_action[action] = by_action[action] or {}
      table.insert(by_action[action], key)
    end
  end
  local out = {}
  for _, action in ipairs(keys.order) do
    local ks = by_action[action]
    if ks then
      table.sort(ks)
      out[#out + 1] = ('%-22s %s'):format(table.concat(ks, ' '), keys.actions[action])
    end
  end
  out[#out + 1] = ''
  out[#out + 1] = 'Input line: <CR> sends, <C-CR>/<M-CR> starts and attaches, <Esc> back to the list'
  return out
end

---@param p madohub.Picker
function M.toggle_help(p)
  if p.help_win then
    pcall(vim.api.nvim_win_close, p.help_win, true)
    p.help_win = nil
    return
  end
  local lines = M.help_lines()
  local buf = H.scratch('madohub_help')
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  local width = 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, vim.o.columns - 4)
  p.help_win = vim.api.nvim_open_win(buf, false, {
    relative = 'editor', row = math.max(0, math.floor((vim.o.lines - #lines) / 2) - 1), col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    width = width, height = math.min(#lines, vim.o.lines - 4), style = 'minimal', border = H.border(),
    title = ' MadoAgents keys (:help madohub-picker) ', title_pos = 'center', zindex = 60,
  })
end

--- Input line -------------------------------------------------------------------------------------

local PLACEHOLDER = 'n: describe a task for a new agent ([@agent] [--worktree] …) · ? keys'

---@param p madohub.Picker
function H.input_title(p)
  local mode, target = p.input.mode, p.input.target and fleet.find(p.input.target)
  if mode == 'reply' then
    return (' Reply to %s '):format(target and target.name or '?')
  elseif mode == 'rename' then
    return (' Rename %s '):format(target and target.name or '?')
  elseif mode == 'filter' then
    return ' Filter (a:agent s:state k:kind words) '
  end
  return p.input.attach and ' New agent (attach) ' or ' New agent '
end

---@param p madohub.Picker
function H.placeholder(p)
  vim.api.nvim_buf_clear_namespace(p.input_buf, ns, 0, -1)
  local line = vim.api.nvim_buf_get_lines(p.input_buf, 0, 1, false)[1] or ''
  if line == '' and p.input.mode == 'new' then
    vim.api.nvim_buf_set_extmark(p.input_buf, ns, 0, 0, { virt_text = { { PLACEHOLDER, 'Comment' } }, virt_text_pos = 'overlay' })
  end
end

---Focuses the input line in `mode` (for `target`), with `text` in it.
---@param p madohub.Picker
---@param mode "new"|"reply"|"filter"|"rename"
---@param target string|nil
---@param text string|nil
---@param attach boolean|nil
function M.input(p, mode, target, text, attach)
  p.input = { mode = mode, target = target, attach = attach == true }
  vim.api.nvim_buf_set_lines(p.input_buf, 0, -1, false, { text or '' })
  vim.api.nvim_win_set_config(p.input_win, { title = H.input_title(p), title_pos = 'left' })
  H.placeholder(p)
  vim.api.nvim_set_current_win(p.input_win)
  vim.cmd('startinsert!')
end

---Back from the input line to the list (a filter stays; other text stays for another try).
---@param p madohub.Picker
---@param clear boolean|nil
function M.leave_input(p, clear)
  vim.cmd('stopinsert')
  if clear then
    vim.api.nvim_buf_set_lines(p.input_buf, 0, -1, false, { '' })
  end
  p.input = { mode = 'new', attach = false }
  if vim.api.nvim_win_is_valid(p.input_win) then
    vim.api.nvim_win_set_config(p.input_win, { title = H.input_title(p), title_pos = 'left' })
  end
  H.placeholder(p)
  if vim.api.nvim_win_is_valid(p.list_win) then
    vim.api.nvim_set_current_win(p.list_win)
  end
end

---@param p madohub.Picker
---@param attach boolean
function H.submit(p, attach)
  local text = vim.api.nvim_buf_get_lines(p.input_buf, 0, 1, false)[1] or ''
  require('madohub.picker.actions').submit(p, p.input.mode, p.input.target, text, attach or p.input.attach)
end

---@param p madohub.Picker
function H.map_input(p)
  local o = { buffer = p.input_buf, nowait = true, silent = true }
  vim.keymap.set({ 'i', 'n' }, '<CR>', function()
    H.submit(p, false)
  end, o)
  for _, k in ipairs({ '<C-CR>', '<M-CR>', '<S-CR>' }) do
    vim.keymap.set({ 'i', 'n' }, k, function()
      H.submit(p, true)
    end, o)
  end
  vim.keymap.set({ 'i', 'n' }, '<Esc>', function()
    M.leave_input(p, p.input.mode ~= 'new' and p.input.mode ~= 'reply')
  end, o)
  vim.keymap.set('n', 'q', function()
    M.close()
  end, o)
  vim.api.nvim_create_autocmd({ 'TextChangedI', 'TextChanged' }, {
    buffer = p.input_buf,
    callback = function()
      H.placeholder(p)
      if p.input.mode == 'filter' then
        p.ui.filter = vim.api.nvim_buf_get_lines(p.input_buf, 0, 1, false)[1] or ''
        M.render(p)
      end
    end,
  })
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
        M.draw_peek(p)
      end
    end,
  })
end

--- Open and close ---------------------------------------------------------------------------------

---Opens the picker (or focuses it when open).
function M.open()
  if M.current and H.valid(M.current) then
    vim.api.nvim_set_current_win(M.current.list_win)
    return
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
  } --[[@as madohub.Picker]]
  local select = vim.env.MADOHUB_AGENTS_SELECT
  if select and select ~= '' then
    p.selected = select
    vim.env.MADOHUB_AGENTS_SELECT = nil
  end
  local g = H.layout(false)
  p.list_buf = H.scratch('madohub_agents')
  p.input_buf = H.scratch('madohub_input')
  p.list_win = vim.api.nvim_open_win(p.list_buf, true, {
    relative = 'editor', row = g.list.row, col = g.list.col, width = g.list.width, height = g.list.height,
    style = 'minimal', border = H.border(), title = ' Agents ', title_pos = 'center',
    footer = ' ? keys · / filter · n new · q close ', footer_pos = 'right', zindex = 50,
  })
  p.input_win = vim.api.nvim_open_win(p.input_buf, false, {
    relative = 'editor', row = g.input.row, col = g.input.col, width = g.input.width, height = 1,
    style = 'minimal', border = H.border(), title = ' New agent ', title_pos = 'left', zindex = 50,
  })
  vim.wo[p.list_win].cursorline = true
  vim.wo[p.list_win].wrap = false
  vim.bo[p.list_buf].modifiable = false
  M.current = p
  H.map_list(p)
  H.map_input(p)
  H.placeholder(p)
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
  local group = vim.api.nvim_create_augroup('madohub_picker', { clear = true })
  vim.api.nvim_create_autocmd('WinEnter', {
    group = group,
    callback = function()
      local win = vim.api.nvim_get_current_win()
      if M.current == p and win ~= p.list_win and win ~= p.input_win and win ~= p.peek_win and win ~= p.help_win then
        M.close()
      end
    end,
  })
  vim.api.nvim_create_autocmd('VimResized', {
    group = group,
    callback = function()
      if M.current == p then
        H.relayout(p)
      end
    end,
  })
  M.render(p)
end

---Closes the picker and keeps its state (grouping, folded groups, this folder's filter).
function M.close()
  local p = M.current
  if not p then
    return
  end
  M.current = nil
  pcall(vim.api.nvim_del_augroup_by_name, 'madohub_picker')
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
  for _, win in ipairs({ p.help_win, p.peek_win, p.input_win, p.list_win }) do
    if win and vim.api.nvim_win_is_valid(win) then
      pcall(vim.api.nvim_win_close, win, true)
    end
  end
end

---Toggles the picker.
function M.toggle()
  if M.current then
    M.close()
  else
    M.open()
  end
end

M._H = H
return M
