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

---A target's name for a person: the fleet's name of an entry, a buffer's name, a file's path.
---@param target string
---@return string
function M.target_name(target)
  local e = require('madohub.fleet').find(target)
  if e then
    return e.name
  end
  local buf = tonumber(target:match('^buf:(%d+)$') or '')
  if buf then
    local name = vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_get_name(buf) or ''
    return name ~= '' and vim.fn.fnamemodify(name, ':~:.') or ('buffer ' .. buf)
  end
  return (target:gsub('^file:', ''))
end

---An entry, buffer or file named by the user, as a route's end: a buffer number, a fleet id
---(`term:12`, `job:1a2b3c4d`), `file:path`, a job's id, prefix or name, or a terminal's name.
---@param what string|integer
---@param role "source"|"target"
---@return string|nil id
---@return string|nil why
function M.resolve(what, role)
  local fleet = require('madohub.fleet')
  if type(what) == 'number' or (type(what) == 'string' and what:match('^%d+$')) then
    local buf = tonumber(what) --[[@as integer]]
    if buf == 0 then
      buf = vim.api.nvim_get_current_buf()
    end
    if fleet.find('term:' .. buf) then
      return 'term:' .. buf
    end
    local job = vim.api.nvim_buf_is_valid(buf) and vim.b[buf].madohub_job
    if job then
      return 'job:' .. job
    end
    if role == 'target' and vim.api.nvim_buf_is_valid(buf) and vim.bo[buf].buftype == '' then
      return 'buf:' .. buf
    end
    return nil, ('buffer %d is no agent%s'):format(buf, role == 'target' and ' and no file buffer' or '')
  end
  if type(what) ~= 'string' or what == '' then
    return nil, 'name a terminal, a job, a buffer or file:PATH'
  end
  if what:match('^term:%d+$') or what:match('^job:%x%x%x%x%x%x%x%x$') or what:match('^buf:%d+$') then
    return what
  end
  local file = what:match('^file:(.+)$')
  if file then
    return role == 'target' and ('file:' .. vim.fn.fnamemodify(vim.fn.expand(file), ':p')) or nil,
      role ~= 'target' and 'a file is no source' or nil
  end
  local named = {}
  for _, e in ipairs(fleet.get()) do
    if (e.kind == 'terminal' or e.kind == 'job') and e.name == what then
      named[#named + 1] = e.id
    end
  end
  if #named == 1 then
    return named[1]
  elseif #named > 1 then
    return nil, ('%d agents are named %q: %s'):format(#named, what, table.concat(named, ', '))
  end
  local node = require('madohub.node')
  local job = node.running() and node.request('job', what)
  if type(job) == 'table' and job.short then
    return 'job:' .. job.short
  end
  return nil, ('no agent %q'):format(what)
end

---The settings the Node side needs (`routes` in setup()).
local function settings()
  local o = config.options.routes
  return { templates = o.templates, max_bytes = o.max_bytes, busy_ms = o.busy_ms }
end

---Adds a route from `source` to `target`: the route the Node side made. Raises an error that says why not.
---@param source string|integer
---@param target string|integer
---@param opts madohub.RouteOpts|nil
---@return madohub.Route
local function add(source, target, opts)
  require('madohub').boot()
  local node = require('madohub.node')
  node.ensure()
  local from, why = M.resolve(source, 'source')
  if not from then
    error('madohub.route: ' .. why, 0)
  end
  local to, why2 = M.resolve(target, 'target')
  if not to then
    error('madohub.route: ' .. why2, 0)
  end
  local req = vim.tbl_extend('force', {}, opts or {}, { source = from, target = to, target_name = M.target_name(to) })
  local answer, err = node.request('route_add', req, settings())
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
  util.notify(('route %s: edit what %s sends, then :w or <CR> sends it, q drops it'):format(route.id, M.target_name(route.target)))
end

---A route as one line for a person.
---@param r madohub.Route
---@return string
function M.describe(r)
  local fleet = require('madohub.fleet')
  local src = fleet.find(r.source)
  local opts = { 'on=' .. r.on, 'send=' .. r.send, 'hops=' .. r.hops }
  if r.template ~= '' then
    opts[#opts + 1] = 'template=' .. r.template
  end
  if r.once then
    opts[#opts + 1] = 'once'
  end
  if r.review then
    opts[#opts + 1] = 'review'
  end
  if r.paused then
    opts[#opts + 1] = 'paused'
  end
  return ('%s  %s → %s  %s'):format(r.id, src and src.name or r.source, M.target_name(r.target), table.concat(opts, ' '))
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

local OPTION_KEYS = { on = true, send = true, template = true, hops = true }
local FLAGS = { once = true, review = true }

---`:MadoRoute …`: `list`, `clear`, `pause`, `resume`, `rm ID`, or `[{source}] {target} [options]`.
---@param args string[]
function M.command(args)
  local sub = args[1]
  if sub == nil then
    return util.notify('usage: :MadoRoute {target} | {source} {target} [on= send= template= hops= once review] | list | clear | pause | resume | rm {id}', vim.log.levels.ERROR)
  elseif sub == 'list' and #args == 1 then
    return M.list_float()
  elseif sub == 'clear' and #args == 1 then
    local n = #cache
    require('madohub.node').notify('route_clear', { all = true })
    return util.notify(('removed %d route%s'):format(n, n == 1 and '' or 's'))
  elseif (sub == 'pause' or sub == 'resume') and #args == 1 then
    require('madohub.node').notify('route_pause', { paused = sub == 'pause' })
    return util.notify(sub == 'pause' and 'routes paused' or 'routes resumed')
  elseif sub == 'rm' and #args == 2 then
    if not M.unroute(args[2]) then
      return util.notify(('no route %q'):format(args[2]), vim.log.levels.ERROR)
    end
    return util.notify(('removed route %s'):format(args[2]))
  end
  local ends, opts = {}, {}
  for _, a in ipairs(args) do
    local k, v = a:match('^(%w+)=(.*)$')
    if k and OPTION_KEYS[k] then
      opts[k] = k == 'hops' and tonumber(v) or v
      if k == 'hops' and not opts.hops then
        return util.notify(('hops=%s is no number'):format(v), vim.log.levels.ERROR)
      end
    elseif FLAGS[a] then
      opts[a] = true
    elseif k then
      return util.notify(('unknown option %s= (on=, send=, template=, hops=, once, review)'):format(k), vim.log.levels.ERROR)
    else
      ends[#ends + 1] = a
    end
  end
  if #ends < 1 or #ends > 2 then
    return util.notify('name a target, or a source and a target', vim.log.levels.ERROR)
  end
  local source = #ends == 2 and ends[1] or vim.api.nvim_get_current_buf()
  local target = ends[#ends]
  local ok, result = pcall(add, source, target, opts)
  if not ok then
    return util.notify((tostring(result):gsub('^madohub%.route: ', ':MadoRoute: ')), vim.log.levels.ERROR)
  end
  util.notify('route ' .. M.describe(result))
end

---Completion: the subcommands, the agents (ids and names), the options.
---@param lead string
---@return string[]
function M.complete(lead)
  local out = {}
  local function add(s)
    if s:sub(1, #lead) == lead then
      out[#out + 1] = s
    end
  end
  for _, s in ipairs({ 'list', 'clear', 'pause', 'resume', 'rm', 'on=done', 'on=turn', 'on=waiting', 'send=last', 'send=diff', 'send=screen', 'template=review', 'template=continue', 'hops=', 'once', 'review', 'file:' }) do
    add(s)
  end
  for name in pairs(config.options.routes.templates) do
    add('template=' .. name)
  end
  for _, e in ipairs(require('madohub.fleet').get()) do
    if e.kind == 'terminal' or e.kind == 'job' then
      add(e.id)
      if e.name ~= '' and not e.name:find('[%s%c]') then
        add(e.name)
      end
    end
  end
  return out
end

return M
