---Routes: when one agent finishes a turn, its result goes to another (`:MadoRoute`). The Node side
---keeps them and fires them; this module asks it, caches the list it pushes (for `routes()`, the
---winbar and the picker), writes into buffers, opens reviews and raises the events.
local config = require('madohub.config')
local util = require('madohub.util')

local M = {}

---@class madohub.Route
---@field id string
---@field source string `term:<buf>` or `job:<id>`.
---@field target string `term:<buf>`, `job:<id>`, `buf:<n>` or `file:<path>`.
---@field targetName string The target's name when it is no agent (a buffer's name, a file's path).
---@field options string Its options as words (`on=done send=last hops=3 once`), from the Node side.
---@field on "done"|"turn"|"waiting"
---@field send "last"|"diff"|"screen"
---@field template string
---@field hops integer
---@field once boolean
---@field review boolean
---@field paused boolean
---@field createdAt number
---@field keeper "neovim"|"daemon" Who keeps it: this Neovim (its Node process), or the daemon.

---@class madohub.RouteOpts
---@field on? "done"|"turn"|"waiting"
---@field send? "last"|"diff"|"screen"
---@field template? string
---@field hops? integer
---@field once? boolean
---@field review? boolean

---@type madohub.Route[]
local cache = {}

---Receives the routes from the Node side (after each change).
---@param list madohub.Route[]
function M.apply(list)
  cache = type(list) == 'table' and list or {}
  require('madohub.ui').sync_all()
  local picker = package.loaded['madohub.picker']
  if picker and picker.current then
    picker.schedule(picker.current)
  end
end

---A new Node process started: it gets this Neovim's routes back (the Node side says which are this
---Neovim's, `keeper`: the daemon keeps its own), for they live as long as this Neovim.
function M.restore()
  local mine = vim.tbl_filter(function(r)
    return r.keeper == 'neovim'
  end, cache)
  cache = mine
  if #mine > 0 then
    require('madohub.node').notify('route_restore', { routes = mine })
  end
end

---Copies of the routes, oldest first.
---@return madohub.Route[]
function M.get()
  return vim.deepcopy(cache)
end

---The routes that leave `id` (not copies: for the winbar and the picker, which only read them).
---@param id string
---@return madohub.Route[]
function M.from(id)
  local out = {}
  for _, r in ipairs(cache) do
    if r.source == id then
      out[#out + 1] = r
    end
  end
  return out
end

---A target's name for a person: the fleet's name of an entry, else the name the Node side gave the
---route's target (a buffer's name, a file's path).
---@param r madohub.Route
---@return string
function M.target_name(r)
  local e = require('madohub.fleet').find(r.target)
  return e and e.name or r.targetName
end

---The settings the Node side needs (`routes` in setup()), in the wire's words.
local function settings()
  local o = config.options.routes
  return { templates = o.templates, maxBytes = o.max_bytes, busyMs = o.busy_ms }
end

---What the Node side needs to read the ends the user named: the buffer and folder the user is in.
---@return { buf: integer, cwd: string }
local function here()
  return { buf = vim.api.nvim_get_current_buf(), cwd = vim.fn.getcwd() }
end

---Adds a route from `source` to `target` (as the user named them: the Node side resolves them): the
---route the Node side made. Raises an error that says why not.
---@param source string|integer
---@param target string|integer
---@param opts madohub.RouteOpts|nil
---@return madohub.Route
local function add(source, target, opts)
  require('madohub').boot()
  local node = require('madohub.node')
  node.ensure()
  local answer, err = node.request('route_add', vim.tbl_extend('force', here(), { source = source, target = target, opts = opts or {}, settings = settings() }))
  if type(answer) ~= 'table' then
    error('madohub.route: ' .. tostring(err), 0)
  end
  if answer.error then
    error('madohub.route: ' .. answer.error, 0)
  end
  return answer.route
end

---Adds a route from `source` to `target`; its id. A refused route raises an error that says why.
---@param source string|integer
---@param target string|integer
---@param opts madohub.RouteOpts|nil
---@return string
function M.route(source, target, opts)
  return add(source, target, opts).id
end

---Removes a route; false when there is none of that id.
---@param id string
---@return boolean
function M.unroute(id)
  for _, r in ipairs(cache) do
    if r.id == id then
      require('madohub.node').notify('route_rm', { id = id })
      return true
    end
  end
  return false
end

---An event of the Node side: `fired` or `held`, raised as `User MadoRouteFired`/`MadoRouteHeld`.
---@param kind "fired"|"held"
---@param data table
function M.event(kind, data)
  local pattern = kind == 'fired' and 'MadoRouteFired' or 'MadoRouteHeld'
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

---@param message string
---@param warn boolean
function M.say(message, warn)
  util.notify(message, warn and vim.log.levels.WARN or nil)
end

---Appends lines to a normal buffer (a route's target); '' or why not.
---@param buf integer
---@param lines string[]
---@return string
function M.append(buf, lines)
  if type(buf) ~= 'number' or not vim.api.nvim_buf_is_valid(buf) then
    return 'the buffer is gone'
  end
  if not vim.bo[buf].modifiable then
    return ('buffer %d cannot be changed'):format(buf)
  end
  local count = vim.api.nvim_buf_line_count(buf)
  local empty = count == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ''
  vim.api.nvim_buf_set_lines(buf, empty and 0 or count, -1, false, lines)
  return ''
end

---Opens a firing's payload in a buffer to edit: `:w` or <CR> sends what it holds, `q` drops it.
---@param review integer
---@param route madohub.Route
---@param text string
function M.review(review, route, text)
  local node = require('madohub.node')
  local decided = false
  local function decide(buf, send)
    if decided then
      return
    end
    decided = true
    local body = send and table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') or vim.NIL
    node.notify('route_review', { review = review, text = body })
    vim.schedule(function()
      if vim.api.nvim_buf_is_valid(buf) then
        vim.api.nvim_buf_delete(buf, { force = true })
      end
    end)
  end
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'acwrite'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, ('mado://route/%s/%d'):format(route.id, review))
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modified = false
  vim.api.nvim_create_autocmd('BufWriteCmd', { buffer = buf, callback = function() decide(buf, true) end })
  vim.api.nvim_create_autocmd('BufWipeout', { buffer = buf, callback = function() decide(buf, false) end })
  vim.keymap.set('n', '<CR>', function() decide(buf, true) end, { buffer = buf, desc = 'MadoRoute: send' })
  vim.keymap.set('n', 'q', function() decide(buf, false) end, { buffer = buf, desc = 'MadoRoute: drop this firing' })
  util.notify(('route %s: edit what %s sends, then :w or <CR> sends it, q drops it'):format(route.id, M.target_name(route)))
end

---A route as one line for a person.
---@param r madohub.Route
---@return string
function M.describe(r)
  local src = require('madohub.fleet').find(r.source)
  return ('%s  %s → %s  %s'):format(r.id, src and src.name or r.source, M.target_name(r), r.options)
end

---`:MadoRoute list`: the routes in a float; `dd` removes the one under the cursor, `q` closes.
function M.list_float()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  local function draw()
    local lines = {}
    for _, r in ipairs(cache) do
      lines[#lines + 1] = M.describe(r)
    end
    if #lines == 0 then
      lines = { 'no routes (:MadoRoute {target} in a terminal adds one)' }
    end
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
  end
  draw()
  local width = math.min(vim.o.columns - 4, 100)
  local height = math.min(vim.o.lines - 4, math.max(3, #cache))
  local win = vim.api.nvim_open_win(buf, true, {
    relative = 'editor', row = math.floor((vim.o.lines - height) / 2), col = math.floor((vim.o.columns - width) / 2),
    width = width, height = height, style = 'minimal', border = require('madohub.picker.layout').border(),
    title = ' Routes · dd removes · q closes ', title_pos = 'center',
  })
  vim.keymap.set('n', 'dd', function()
    local r = cache[vim.api.nvim_win_get_cursor(win)[1]]
    if r and M.unroute(r.id) then
      util.notify(('removed route %s'):format(r.id))
      table.remove(cache, vim.api.nvim_win_get_cursor(win)[1])
      draw()
    end
  end, { buffer = buf, nowait = true })
  for _, k in ipairs({ 'q', '<Esc>' }) do
    vim.keymap.set('n', k, function()
      pcall(vim.api.nvim_win_close, win, true)
    end, { buffer = buf, nowait = true })
  end
end

---`:MadoRoute …`: the words go to the Node side as typed (it parses them: `list`, `clear`, `pause`,
---`resume`, `rm ID`, or `[{source}] {target} [options]`); what it answers is said here.
---@param args string[]
function M.command(args)
  require('madohub').boot()
  local node = require('madohub.node')
  node.ensure()
  local answer, err = node.request('route_command', vim.tbl_extend('force', here(), { args = args, settings = settings() }))
  if type(answer) ~= 'table' then
    return util.notify(':MadoRoute: ' .. tostring(err), vim.log.levels.ERROR)
  end
  if answer.list then
    return M.list_float()
  elseif answer.route then
    return util.notify('route ' .. M.describe(answer.route))
  end
  util.notify(answer.error and (':MadoRoute: ' .. answer.message) or answer.message, answer.error and vim.log.levels.ERROR or nil)
end

---Completion: the subcommands, the options and the agents (ids and names), as the Node side lists them.
---@param lead string
---@return string[]
function M.complete(lead)
  require('madohub').boot()
  local node = require('madohub.node')
  node.ensure()
  local words = node.request('route_complete', { lead = lead, settings = settings() })
  return type(words) == 'table' and words or {}
end

return M
