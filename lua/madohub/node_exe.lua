---The `node` MadoHub runs: found on PATH (or the `node` option), and recent enough. Its version is
---asked once (a run of `node --version`) and kept until forget().
local config = require('madohub.config')

local M = {}

local MIN_NODE_MAJOR = 20

---How long the blocking check waits for `node --version` (ms).
M.VERSION_WAIT_MS = 5000

---What `node --version` said ('' when it did not run), once asked; nil before.
---@type string|nil
M.node_version = nil
---Why Node cannot serve (missing, too old, not runnable), once known; nil when it can.
---@type string|nil
M.node_error = nil

---@param exe string
---@param version string `node --version` output, '' when it did not run
local function judge(exe, version)
  local major = tonumber(version:match('^v(%d+)'))
  M.node_version = version
  if not major or major < MIN_NODE_MAJOR then
    M.node_error = ('Node >= %d is needed, `%s` is %s'):format(
      MIN_NODE_MAJOR,
      exe,
      version ~= '' and version or 'not runnable'
    )
  else
    M.node_error = nil
  end
end

---@return string|nil exe
---@return string|nil error
local function find_node()
  local exe = vim.fn.exepath(config.options.node)
  if exe == '' then
    return nil,
      ('no `%s` executable found; install Node >= %d or set `node` in setup()'):format(
        config.options.node,
        MIN_NODE_MAJOR
      )
  end
  return exe
end

---Why `node` cannot be found, or nil (cheap: a 'path' search, no process).
---@return string|nil
function M.find_node_error()
  local _, err = find_node()
  return err
end

---What `exe --version` printed ('' when it did not run, or printed nothing), nil when it gave no
---answer in time (blocking).
---@param exe string
---@return string|nil
local function version_of(exe)
  local ok, res = pcall(function()
    return vim.system({ exe, '--version' }, { text = true }):wait(M.VERSION_WAIT_MS)
  end)
  -- Given up waiting (a loaded machine): no verdict is kept, and Node is not called broken; the
  -- next check asks again, and a Node that cannot run says so when it is started.
  -- (On a timeout Neovim 0.10 answers code 124; 0.12 may answer nothing.)
  if ok and (res == nil or res.code == 124) then
    return nil
  end
  return ok and res and res.code == 0 and vim.trim(res.stdout or '') or ''
end

---Checks that Node exists and is recent enough (runs it and keeps the answer). A run that says
---nothing is run once more before Node is called not runnable: a loaded machine fails one now and
---then (seen in CI), and the verdict is kept for the session.
---@return string|nil error
function M.check_node()
  if M.node_version ~= nil then
    return M.node_error
  end
  local exe, err = find_node()
  if not exe then
    M.node_version, M.node_error = '', err
    return err
  end
  local version = version_of(exe)
  if version == '' then
    version = version_of(exe)
  end
  if version == nil then
    return nil
  end
  judge(exe, version)
  return M.node_error
end

---Runs `exe --version` without blocking; `done(text)` runs (scheduled) with what it printed ('' when
---it did not run).
---@param exe string
---@param done fun(text: string)
local function ask_version(exe, done)
  -- uv.spawn rather than vim.system: this runs in setup(), at startup, and must stay cheap.
  local stdout = assert(vim.uv.new_pipe())
  local text = ''
  local finish = vim.schedule_wrap(function()
    done(vim.trim(text))
  end)
  -- Done when both the output has ended and the process has exited (and been reaped).
  local pending = 2
  local function one_done()
    pending = pending - 1
    if pending == 0 then
      finish()
    end
  end
  local handle
  handle = vim.uv.spawn(exe, { args = { '--version' }, stdio = { nil, stdout, nil } }, function()
    handle:close()
    one_done()
  end)
  if not handle then
    stdout:close()
    vim.schedule(function()
      done('')
    end)
    return
  end
  stdout:read_start(function(_, data)
    if data then
      text = text .. data
      return
    end
    stdout:close()
    one_done()
  end)
end

---The same check without blocking: `on_error(msg)` runs (scheduled) when Node is missing or old.
---@param on_error fun(msg: string)
function M.check_node_async(on_error)
  if M.node_version ~= nil then
    if M.node_error then
      on_error(M.node_error)
    end
    return
  end
  local exe, err = find_node()
  if not exe then
    M.node_version, M.node_error = '', err
    on_error(err)
    return
  end
  ---@param text string
  ---@param again boolean whether a run that says nothing is run once more
  local function judged(text, again)
    if M.node_version ~= nil then
      return
    end
    if text == '' and again then
      return ask_version(exe, function(next)
        judged(next, false)
      end)
    end
    judge(exe, text)
    if M.node_error then
      on_error(M.node_error)
    end
  end
  ask_version(exe, function(text)
    judged(text, true)
  end)
end

---Forgets the verdict (a configuration change: another `node` may be named).
function M.forget()
  M.node_version = nil
  M.node_error = nil
end

return M
