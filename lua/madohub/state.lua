---Every terminal's state, from the one Lua cache (the fleet's entries, which the Node side pushes):
---`get` answers from it, so statuslines and the winbar never wait on Node; `changed` raises the
---events of a batch of changes.
local M = {}

---@class madohub.State
---@field agent madohub.Agent
---@field state madohub.StateName
---Where the state was read: `pty-scrape` (the screen), `terminal` (the job's exit), `session-file`,
---`jsonl-watcher` or `session-db` (the agent's records), `event-stream` or `notification` (its own word).
---@field source string
---@field confirmed boolean The agent's own records say this state (the Node side says which sources are records).
---@field since number Epoch milliseconds when this state began.
---@field detail string The line that decided the state.
---@field exit integer|nil The terminal's exit status once it has exited.
---@field interrupted boolean A Failed state that is the user's interrupt, not an error.
---@field usage madohub.Usage|nil What its agent spent, from its records (|madohub-usage|); nil: not known.

---@class madohub.Change: madohub.State
---@field buf integer
---@field previous madohub.StateName|nil
---@field done { line: string }|nil

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
  -- The one cache: the fleet's entry of the terminal (a job's view too).
  local e = require('madohub.fleet').terminal(buf)
  if not e or not require('madohub.watch').is_watched(buf) then
    return nil
  end
  return {
    agent = e.agent,
    state = e.state,
    source = e.source,
    confirmed = e.confirmed == true,
    since = e.since,
    detail = e.detail,
    exit = require('madohub.util').value(e.exit),
    interrupted = e.interrupted == true,
    usage = require('madohub.util').value(e.usage),
  }
end

---@param buf integer
function M.forget(buf)
  require('madohub.attention').forget(buf)
end

---@param pattern string
---@param data table
local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

---The agent and state of each terminal of `changes` as the cache has them now (before a batch is
---applied): what the events compare with.
---@param changes madohub.Change[]
---@return table<integer, { agent: madohub.Agent, state: madohub.StateName }>
function M.before(changes)
  local out = {}
  for _, c in ipairs(changes) do
    local e = require('madohub.fleet').terminal(c.buf)
    if e and not out[c.buf] then
      out[c.buf] = { agent = e.agent, state = e.state }
    end
  end
  return out
end

---The terminals' state changes of a batch, once the fleet's cache has them: the events
---(`MadoStateChanged`, `MadoAgentDone`), the notifications and the winbars.
---@param changes madohub.Change[]
---@param before table<integer, { agent: madohub.Agent, state: madohub.StateName }>
function M.changed(changes, before)
  local touched = {}
  for _, c in ipairs(changes) do
    local buf = c.buf
    if vim.api.nvim_buf_is_valid(buf) and require('madohub.watch').is_watched(buf) then
      local prev = before[buf]
      touched[#touched + 1] = buf
      if not prev or prev.state ~= c.state or prev.agent ~= c.agent then
        fire('MadoStateChanged', {
          buf = buf,
          agent = c.agent,
          state = c.state,
          previous = prev and prev.state or vim.NIL,
          source = c.source,
        })
        before[buf] = { agent = c.agent, state = c.state }
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
