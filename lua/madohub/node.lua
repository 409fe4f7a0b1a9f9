---The Node process: started lazily on the first terminal, restarted with backoff when it dies,
---stopped on VimLeavePre. Every message to it is a notification (`notify()`, and `call()`, whose
---answer comes back as another); nothing here waits on Node but `request()`, for :checkhealth,
---commands that must answer at once, and tests.
local config = require('madohub.config')
local util = require('madohub.util')

local M = {}

local node_exe = require('madohub.node_exe')

local BACKOFF_FIRST_MS = 250
local BACKOFF_MAX_MS = 15000
---A process that ran this long is healthy again: the next death starts the backoff over.
local HEALTHY_MS = 30000

---@class madohub.NodeProcess
---@field chan integer|nil The RPC channel of the running process.
---@field started_at number|nil
---@field stopping boolean
---@field backoff integer Milliseconds before the next restart.
---@field warned boolean A death was reported since the process last ran healthy.
---@field failed string|nil Why the process cannot run at all (no node, too old, not built).
---@field restart_timer uv_timer_t|nil
local proc = { chan = nil, started_at = nil, stopping = false, backoff = BACKOFF_FIRST_MS, warned = false }

---Calls waiting for their answer, by id.
---@type table<integer, fun(result: any, err: string|nil)>
local pending = {}
local last_call = 0

---Fails every call still waiting (the Node process went away).
---@param why string
local function fail_pending(why)
  local waiting = pending
  pending = {}
  for _, done in pairs(waiting) do
    done(nil, why)
  end
end

---Called after each (re)start with the new channel, so the watcher can send every terminal again.
---@type fun()|nil
M.on_start = nil

---@return string
function M.entry()
  return util.root() .. '/rplugin/node/madohub/index.js'
end

---@return boolean
function M.running()
  return proc.chan ~= nil
end

---@return integer|nil
function M.channel()
  return proc.chan
end

local function schedule_restart()
  if proc.restart_timer then
    return
  end
  local delay = proc.backoff
  proc.backoff = math.min(proc.backoff * 2, BACKOFF_MAX_MS)
  proc.restart_timer = vim.defer_fn(function()
    proc.restart_timer = nil
    if not proc.stopping then
      M.start()
    end
  end, delay)
end

---@param chan integer The channel of the process that exited.
---@param code integer
local function on_exit(chan, code)
  -- A process stopped by a restart or a new setup() is not the one that runs now: nothing to do.
  if chan ~= proc.chan then
    return
  end
  proc.chan = nil
  fail_pending(('the Node process exited (code %d)'):format(code))
  if proc.stopping then
    return
  end
  local ran = proc.started_at and (util.now_ms() - proc.started_at) or 0
  if ran >= HEALTHY_MS then
    proc.backoff = BACKOFF_FIRST_MS
    proc.warned = false
  end
  if not proc.warned then
    proc.warned = true
    local where = config.options.log and (' (log: ' .. config.options.log .. ')') or ''
    util.notify(('Node process exited with code %d; restarting%s'):format(code, where), vim.log.levels.WARN)
  end
  schedule_restart()
end

---Starts the process unless it runs. Returns the channel, or nil and why not.
---@return integer|nil chan
---@return string|nil error
function M.start()
  if proc.chan then
    return proc.chan
  end
  if proc.failed then
    return nil, proc.failed
  end
  local err = node_exe.check_node()
  local entry = M.entry()
  if not err and vim.fn.filereadable(entry) == 0 then
    err = ('the Node side is not built: run `npm ci && npm run build` in %s'):format(util.root())
  end
  if err then
    proc.failed = err
    util.notify(err, vim.log.levels.ERROR)
    return nil, err
  end
  proc.stopping = false
  local env = { MADOHUB_NODE = '1', MADOHUB_LOG_LEVEL = config.options.log_level }
  if config.options.log then
    env.MADOHUB_LOG = config.options.log
    env.NVIM_NODE_LOG_FILE = config.options.log
  end
  local ok, chan = pcall(vim.fn.jobstart, { vim.fn.exepath(config.options.node), entry }, {
    rpc = true,
    env = env,
    on_exit = function(chan, code)
      on_exit(chan, code)
    end,
  })
  if not ok or chan <= 0 then
    util.notify('could not start the Node process: ' .. tostring(chan), vim.log.levels.ERROR)
    schedule_restart()
    return nil, 'jobstart failed'
  end
  proc.chan = chan
  proc.started_at = util.now_ms()
  if M.on_start then
    M.on_start()
  end
  return chan
end

---Starts the process unless it runs (for a command that needs the Node side now).
function M.ensure()
  if not M.running() then
    M.start()
  end
end

---Every message to the Node process goes on one RPC method, its operation named by `op` (the Node
---side guards each: src/nvim/from-lua.ts).
local METHOD = 'madohub'

---The message of `op` with `fields` (not changed: the message is a copy).
---@param op string
---@param fields table|nil
---@return table
local function message(op, fields)
  local m = {}
  for k, v in pairs(fields or {}) do
    m[k] = v
  end
  m.op = op
  return m
end

---Sends a notification; dropped while the process is down (the watcher sends all again on start).
---@param op string
---@param fields table|nil
function M.notify(op, fields)
  if proc.chan then
    pcall(vim.rpcnotify, proc.chan, METHOD, message(op, fields))
  end
end

---Asks the Node side to do something that takes time (a job operation) without blocking: `done`
---gets the result, or nil and the error, in the main loop. Starts the Node process when needed.
---@param op string
---@param args table
---@param done fun(result: any, err: string|nil)
function M.call(op, args, done)
  if not proc.chan then
    local _, err = M.start()
    if not proc.chan then
      return done(nil, err or 'the Node process does not run')
    end
  end
  last_call = last_call + 1
  pending[last_call] = done
  local m = message(op, args)
  m.ask = last_call
  pcall(vim.rpcnotify, proc.chan, METHOD, m)
end

---Receives the answer of a call (from the Node side): the number it was asked with.
---@param id integer
---@param result any
---@param err string|nil
function M.answer(id, result, err)
  local done = pending[id]
  pending[id] = nil
  if done then
    done(result ~= vim.NIL and result or nil, err ~= vim.NIL and err or nil)
  end
end

---A blocking request, for :checkhealth, commands and tests only (never on a redraw).
---@param op string
---@param fields table|nil
---@return any|nil result
---@return string|nil error
function M.request(op, fields)
  if not proc.chan then
    return nil, 'not running'
  end
  local ok, res = pcall(vim.rpcrequest, proc.chan, METHOD, message(op, fields))
  if not ok then
    return nil, tostring(res)
  end
  return res
end

---@return integer|nil pid
function M.pid()
  if not proc.chan then
    return nil
  end
  local ok, pid = pcall(vim.fn.jobpid, proc.chan)
  return ok and pid or nil
end

function M.stop()
  proc.stopping = true
  if proc.restart_timer then
    proc.restart_timer:stop()
    proc.restart_timer = nil
  end
  if proc.chan then
    pcall(vim.fn.jobstop, proc.chan)
    proc.chan = nil
  end
end

---Allows a fresh start after stop() or a configuration change.
function M.reset()
  M.stop()
  proc.stopping = false
  proc.failed = nil
  proc.backoff = BACKOFF_FIRST_MS
  proc.warned = false
  node_exe.forget()
end

return M
