---Routes: when one agent finishes a turn, its result goes to another (`:MadoRoute`). The Node side
---keeps them and fires them; this module asks it, caches the list it pushes (for `routes()`, the
---winbar and the picker) and raises the events. What a firing does in this Neovim is in
---routes/deliver.lua, `:MadoRoute list` in routes/list.lua.
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
---Neovim's, `keeper`: the daemon keeps its own), for they live as long as this Neovim; and it lists
---every route once (the daemon's too, with none of this Neovim's).
function M.restore()
  local mine = vim.tbl_filter(function(r)
    return r.keeper == 'neovim'
  end, cache)
  cache = mine
  require('madohub.node').notify('route_restore', { routes = mine })
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
  local answer, err = node.request(
    'route_add',
    vim.tbl_extend('force', here(), { source = source, target = target, opts = opts or {}, settings = settings() })
  )
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

---A route as one line for a person.
---@param r madohub.Route
---@return string
function M.describe(r)
  local src = require('madohub.fleet').find(r.source)
  return ('%s  %s → %s  %s'):format(r.id, src and src.name or r.source, M.target_name(r), r.options)
end

---`:MadoRoute …`: the words go to the Node side as typed (it parses them: `list`, `clear`, `pause`,
---`resume`, `rm ID`, or `[{source}] {target} [options]`); what it answers is said here when it comes:
---the editor does not wait (a route between jobs waits on the daemon, which may be starting).
---@param args string[]
function M.command(args)
  require('madohub').boot()
  local node = require('madohub.node')
  node.ensure()
  node.call(
    'route_command',
    vim.tbl_extend('force', here(), { args = args, settings = settings() }),
    function(answer, err)
      if type(answer) ~= 'table' then
        return util.notify(':MadoRoute: ' .. tostring(err), vim.log.levels.ERROR)
      end
      if answer.list then
        return require('madohub.routes.list').open()
      elseif answer.route then
        return util.notify('route ' .. M.describe(answer.route))
      end
      util.notify(
        answer.error and (':MadoRoute: ' .. answer.message) or answer.message,
        answer.error and vim.log.levels.ERROR or nil
      )
    end
  )
end

---Completion: what can follow the words before the cursor (a subcommand, a route's id after `rm`,
---the agents that can be an end, the options not given yet), as the Node side lists them.
---@param lead string
---@param line? string the command line up to the cursor
---@return string[]
function M.complete(lead, line)
  require('madohub').boot()
  local node = require('madohub.node')
  node.ensure()
  local words = node.request('route_complete', { lead = lead, line = line, settings = settings() })
  return type(words) == 'table' and words or {}
end

return M
