---The Lua cache of the fleet: every agent MadoHub knows (terminals of this Neovim, background
---jobs, Claude Code sessions elsewhere, other Neovims' terminals), as the Node side pushes it.
---Reading it never waits on Node.
local M = {}

---@alias madohub.FleetKind "terminal"|"job"|"session"|"editor"

---@class madohub.FleetEntry
---`term:<buf>`, `job:<id>` (`job:<host>:<id>` on a remote host), `claude:<session id>` or `nvim:<pid>:<buf>`.
---@field id string
---@field kind madohub.FleetKind
---@field name string
---@field named boolean The user gave `name` (`R`, `mado --bg -n`): the winbar shows it.
---What the agent was asked to do (a job's intent, the prompt a terminal's agent echoed); '' when unknown.
---@field intent string
---@field agent madohub.Agent
---@field state madohub.StateName
---@field source string Where the state was read (`job-file` for a job).
---@field confirmed boolean The agent's own records say this state.
---@field since number Epoch ms when `state` began.
---@field cwd string
---@field detail string
---@field needs { question: string, options: string[] }|vim.NIL What a waiting agent asks, when known.
---@field where string For a person: `buffer 12`, `job`, `job in buffer 12`, `pid 4711`, `nvim 4711`.
---@field pinned boolean
---@field order number The user's order within a group (a job's `sortOrder`): lower first, 0 when never moved.
---Why a reply waits to be sent, a code ('' when none); its words are `require('madohub.pending')`'s.
---@field pending madohub.Pending
---@field server string Another Neovim's server address (`editor` entries); '' for the others.
---The command that attaches a terminal to a background session (its agent's, from Node); empty for the others.
---@field attach string[]
---This Neovim's terminal buffer that shows it: a terminal's own, the one a job is attached in.
---@field buf integer|vim.NIL
---@field short string A job's short id; '' for the other kinds.
---@field host string The remote host a job runs on (|madohub-hosts|); '' for this machine's.
---@field pid integer|vim.NIL The process of a session elsewhere, or of another Neovim (`editor`).
---@field peerBuf integer|vim.NIL The buffer of another Neovim's terminal (`editor` entries).
---@field tty string The terminal a session elsewhere runs on (`/dev/pts/3`), when the Node side could read it; ''.
---@field exit integer|vim.NIL A terminal's exit status once it has exited.
---@field interrupted boolean A Failed state that is the user's interrupt, not an error.
---@field turns integer The turns it ended, as its owner counts them (a job's host); 0 where nothing counts them.
---@field changed integer|vim.NIL The files its last finished turn changed (|madohub-review|); vim.NIL: not known.
---What it spent, from its agent's records (|madohub-usage|); vim.NIL: not known (an agent that records none).
---@field usage madohub.Usage|vim.NIL
---@field ended boolean Its program is gone (an exited terminal; a job that exited or failed): no write, view or stop.
---A terminal that shows a job (`mado attach`): the job's id ('' for the others); in this cache for its winbar,
---in no list.
---@field shows string

---@class madohub.Spend
---@field inputTokens integer Input tokens not read from the cache.
---@field outputTokens integer Output tokens, reasoning included.
---@field cacheReadTokens integer
---@field cacheWriteTokens integer
---@field costUsd number|vim.NIL In US dollars; vim.NIL where a model has no price.

---@class madohub.Usage: madohub.Spend
---@field model string The model of its last answer; '' when its records name none.
---@field contextUsedPct integer|vim.NIL How full its context is (per cent), as the agent counts it.
---@field turn madohub.Spend Since its last prompt.
---@field subAgents madohub.Spend|vim.NIL What its sub-agents spent (counted in above).
---By day (`YYYY-MM-DD`, local time) and model, sub-agents' counted in.
---@field daily madohub.DailySpend[]

---@class madohub.DailySpend: madohub.Spend
---@field day string
---@field model string

---@class madohub.FleetFilter
---@field kind? madohub.FleetKind
---@field id? string
---@field state? madohub.StateName
---@field agent? madohub.Agent
---@field cwd? string

---@type table<string, madohub.FleetEntry>
local entries = {}

---How long changes gather before one `User MadoFleetChanged`.
local COALESCE_MS = 100
---@type uv_timer_t|nil
local timer = nil

---Who sees every change at once (the picker redraws its rows without waiting for the event).
---@type table<integer, fun()>
local listeners = {}
local last_listener = 0

local function tell_listeners()
  for _, fn in pairs(listeners) do
    fn()
  end
end

local function changed()
  tell_listeners()
  if timer then
    return
  end
  timer = vim.defer_fn(function()
    timer = nil
    vim.api.nvim_exec_autocmds('User', { pattern = 'MadoFleetChanged', modeline = false })
    require('madohub.attention').refresh()
  end, COALESCE_MS)
end

---@class madohub.FleetSpending
---@field day string Today (`YYYY-MM-DD`, local time).
---@field today madohub.Spend What the agents spent today, all of them together.
---@field overDay boolean It crossed the day's budget (|madohub-usage|).

---What the fleet spent today, as the Node side last said; nil before it said.
---@type madohub.FleetSpending|nil
local spending = nil

---Tells `User MadoUsageChanged` (its data: the ids whose usage changed; none when only the fleet's
---total did), once per batch of changes.
---@param ids string[]
local function usage_changed(ids)
  vim.api.nvim_exec_autocmds('User', { pattern = 'MadoUsageChanged', modeline = false, data = { ids = ids } })
end

---What the fleet spent today (the picker's header, the statusline), or nil before the Node side said.
---@return madohub.FleetSpending|nil
function M.spending()
  return spending
end

---The fleet's spending today, from the Node process.
---@param s madohub.FleetSpending
function M.set_spending(s)
  spending = s
  usage_changed({})
end

---What the fleet holds but does not list: other Neovims past the bound of those shown.
---@type { editorsNotShown: integer }
M.not_shown = { editorsNotShown = 0 }

---Receives fleet changes from the Node process.
---@param put madohub.FleetEntry[]
---@param removed string[]
---@param not_shown { editorsNotShown: integer }|nil
function M.apply(put, removed, not_shown)
  if type(not_shown) == 'table' and type(not_shown.editorsNotShown) == 'number' then
    M.not_shown = { editorsNotShown = not_shown.editorsNotShown }
  end
  local renamed = {}
  local spent = {}
  for _, e in ipairs(put) do
    local before = entries[e.id]
    entries[e.id] = e
    if not vim.deep_equal(before and before.usage or vim.NIL, e.usage) then
      spent[#spent + 1] = e.id
    end
    -- A terminal's name is in its winbar once the user gave it.
    if e.kind == 'terminal' and (before == nil or before.name ~= e.name or before.named ~= e.named) then
      renamed[#renamed + 1] = e.buf
    end
  end
  if #renamed > 0 then
    require('madohub.ui').refresh(renamed)
  end
  for _, id in ipairs(removed) do
    entries[id] = nil
  end
  changed()
  if #spent > 0 then
    usage_changed(spent)
  end
end

---What this Neovim keeps of its terminals for a new Node process (they live as long as this Neovim):
---the user's names, pins and order, and each terminal's state and since when (a terminal read again
---in the same state keeps its `since`).
---@return { id: string, name: string|nil, pinned: boolean|nil, order: number|nil, agent: string, state: string,
---  since: number }[]
function M.terminal_marks()
  local out = {}
  for id, e in pairs(entries) do
    if e.kind == 'terminal' then
      out[#out + 1] = {
        id = id,
        name = e.named == true and e.name or nil,
        pinned = e.pinned == true or nil,
        order = type(e.order) == 'number' and e.order ~= 0 and e.order or nil,
        agent = e.agent,
        state = e.state,
        since = e.since,
      }
    end
  end
  return out
end

---Forgets every entry a new Node process sends again: all but this Neovim's terminals, which stay
---(their winbars too) until it has read them again.
function M.reset()
  local watch = require('madohub.watch')
  for id, e in pairs(entries) do
    if e.kind ~= 'terminal' or not watch.is_watched(e.buf) then
      entries[id] = nil
    end
  end
  changed()
end

---What is seen changed without a change of the fleet (a finished turn in sight is seen: |madohub-attention|):
---the rows are drawn again.
function M.seen_changed()
  tell_listeners()
end

---Calls `fn` (in the main loop) after each change; returns what stops it.
---@param fn fun()
---@return fun() unsubscribe
function M.subscribe(fn)
  last_listener = last_listener + 1
  local key = last_listener
  listeners[key] = fn
  return function()
    listeners[key] = nil
  end
end

---The entry with this id (not a copy: for the picker's rendering, which does not change it), or nil.
---A terminal that shows a job is none (`terminal` gives it).
---@param id string
---@return madohub.FleetEntry|nil
function M.find(id)
  local e = entries[id]
  return e and e.shows == '' and e or nil
end

---The entry of this Neovim's terminal `buf`, a job's view too (not a copy: read only), or nil: what
---`state()` and the winbar read.
---@param buf integer
---@return madohub.FleetEntry|nil
function M.terminal(buf)
  return entries[require('madohub.ids').term(buf)]
end

---Every entry (not copies: read only), in no order; no terminal that shows a job.
---@return madohub.FleetEntry[]
function M.all()
  local out = {}
  for _, e in pairs(entries) do
    if e.shows == '' then
      out[#out + 1] = e
    end
  end
  return out
end

---The entry `name` names — its id, a job's short id, or its name — or, for '', the agent in the
---current window (a job's view: that job); else nil and why.
---@param name string
---@return madohub.FleetEntry|nil
---@return string|nil
function M.named(name)
  if name == '' then
    local e = M.terminal(vim.api.nvim_get_current_buf())
    local shows = e and require('madohub.util').value(e.shows)
    if shows and shows ~= '' then
      e = M.get({ id = shows })[1]
    end
    return e, e == nil and 'no agent in this window' or nil
  end
  for _, e in ipairs(M.get()) do
    if e.id == name or (e.short ~= '' and e.short == name) or e.name == name then
      return e
    end
  end
  return nil, ('no agent %q (:MadoAgents lists them)'):format(name)
end

---The names of the terminals and jobs that begin with `lead`, sorted: what a command that acts on
---one completes (:MadoMute, :MadoReview).
---@param lead string
---@return string[]
function M.names(lead)
  local out = {}
  for _, e in ipairs(M.all()) do
    if (e.kind == 'terminal' or e.kind == 'job') and vim.startswith(e.name, lead) then
      out[#out + 1] = e.name
    end
  end
  table.sort(out)
  return out
end

---Copies of the entries that match `filter` (every field given must be equal), ordered by id.
---@param filter madohub.FleetFilter|nil
---@return madohub.FleetEntry[]
function M.get(filter)
  local out = {}
  for _, e in pairs(entries) do
    local keep = e.shows == ''
    for k, v in pairs(keep and filter or {}) do
      if e[k] ~= v then
        keep = false
        break
      end
    end
    if keep then
      out[#out + 1] = vim.deepcopy(e)
    end
  end
  table.sort(out, function(a, b)
    return a.id < b.id
  end)
  return out
end

return M
