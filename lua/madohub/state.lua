---The Lua cache of every terminal's state. The Node side owns the state and pushes each change here
---(`apply`); `get` answers from the cache, so statuslines and the winbar never wait on Node.
local M = {}

---@class madohub.State
---@field agent madohub.Agent
---@field state madohub.StateName
---@field source string Where the state was read: `pty-scrape` (the screen), `terminal` (the job's exit), `session-file`, `jsonl-watcher` or `session-db` (the agent's records).
---@field confirmed boolean The agent's own records say this state (the Node side says which sources are records).
---@field since number Epoch milliseconds when this state began.
---@field detail string The line that decided the state.
---@field exit integer|nil The terminal's exit status once it has exited.
---@field interrupted boolean A Failed state that is the user's interrupt, not an error.

---@class madohub.Change: madohub.State
---@field buf integer
---@field previous madohub.StateName|nil
---@field done { line: string }|nil

---@type table<integer, madohub.State>
local cache = {}

---@class madohub.AgentInfo
---@field id madohub.Agent
---@field name string Its display name.
---@field fallback boolean The agent a terminal runs when no agent does (the shell).

---Every agent the Node side knows, in its order (pushed once when the Node process starts).
---@type madohub.AgentInfo[]
local known = {}

---Receives the agents the Node side knows.
---@param list madohub.AgentInfo[]
function M.set_agents(list)
  known = list
end

---The agents the Node side knows (a copy): ids and display names.
---@return madohub.AgentInfo[]
function M.agents()
  return vim.deepcopy(known)
end

---An agent's name: the user's label (`labels` in setup()), else its display name, else its id.
---@param agent madohub.Agent
---@return string
function M.agent_name(agent)
  local own = require('madohub.config').options.labels[agent]
  if own then
    return own
  end
  for _, a in ipairs(known) do
    if a.id == agent then
      return a.name
    end
  end
  return agent
end

---@param buf integer|nil
---@return madohub.State|nil
function M.get(buf)
  if buf == nil or buf == 0 then
    buf = vim.api.nvim_get_current_buf()
  end
  local s = cache[buf]
  if not s then
    return nil
  end
  return {
    agent = s.agent,
    state = s.state,
    source = s.source,
    confirmed = s.confirmed,
    since = s.since,
    detail = s.detail,
    exit = s.exit,
    interrupted = s.interrupted,
  }
end

---@return table<integer, madohub.State>
function M.all()
  return cache
end

---@param buf integer
function M.forget(buf)
  cache[buf] = nil
  require('madohub.attention').forget(buf)
end

---@param pattern string
---@param data table
local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

---Receives changes from the Node process.
---@param changes madohub.Change[]
function M.apply(changes)
  local touched = {}
  for _, c in ipairs(changes) do
    local buf = c.buf
    if vim.api.nvim_buf_is_valid(buf) and require('madohub.watch').is_watched(buf) then
      local prev = cache[buf]
      local since = c.since
      if prev and c.previous == vim.NIL and prev.state == c.state and prev.agent == c.agent then
        -- A restarted Node process reads the terminal afresh: the state did not begin now.
        since = prev.since
      end
      cache[buf] = {
        agent = c.agent,
        state = c.state,
        source = c.source,
        confirmed = c.confirmed == true,
        since = since,
        detail = c.detail,
        exit = require('madohub.util').value(c.exit),
        interrupted = c.interrupted == true,
      }
      touched[#touched + 1] = buf
      if not prev or prev.state ~= c.state or prev.agent ~= c.agent then
        if prev and prev.state ~= c.state then
          require('madohub.attention').changed(buf, cache[buf], prev.state)
        end
        fire('MadoStateChanged', {
          buf = buf,
          agent = c.agent,
          state = c.state,
          previous = prev and prev.state or vim.NIL,
          source = c.source,
        })
      end
      if c.done ~= nil and c.done ~= vim.NIL then
        fire('MadoAgentDone', { buf = buf, agent = c.agent, line = c.done.line })
      end
    end
  end
  if #touched > 0 then
    require('madohub.ui').refresh(touched)
  end
end

return M
