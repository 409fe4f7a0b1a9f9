---What the picker shows, from the fleet and the picker's own state: groups in order, rows in order,
---the header's counts, the filter. Pure (no window, no Node): the picker draws what this answers.
local M = {}

---@class madohub.PickerUi
---@field group_by "state"|"dir"
---@field folded table<string, boolean> Group keys folded.
---@field filter string
---@field seen table<string, number> Entry id → the `since` of the state the user has seen.
---@field cwd string The folder whose group comes first when grouping by directory.

---@class madohub.PickerRow
---@field group string The group's key.
---@field label string|nil A group's header row: its label (nil for an entry's row).
---@field count integer|nil A header row: how many entries the group holds.
---@field folded boolean|nil A header row: folded.
---@field entry madohub.FleetEntry|nil An entry's row.

---The groups by state, in their order.
M.STATE_GROUPS = {
  { key = 'pinned', label = 'Pinned' },
  { key = 'needs', label = 'Needs input' },
  { key = 'working', label = 'Working' },
  { key = 'done', label = 'Done' },
  { key = 'idle', label = 'Idle' },
  { key = 'ended', label = 'Ended (failed, exited)' },
}

---The group of each state.
---@param state string
---@return string|nil
local function group_of_state(state)
  local facts = require('madohub.states').of[state]
  return facts and facts.group
end

---The group of an entry by state.
---@param e madohub.FleetEntry
---@return string
function M.state_group(e)
  if e.pinned then
    return 'pinned'
  end
  -- Interrupted by you, its agent waits for the next prompt: it has not ended.
  if e.state == 'failed' and e.interrupted == true then
    return 'idle'
  end
  return group_of_state(e.state) or 'ended'
end

---A finished turn the user has not looked at since it ended.
---@param e madohub.FleetEntry
---@param ui madohub.PickerUi
---@return boolean
function M.unseen(e, ui)
  return group_of_state(e.state) == 'done' and ui.seen[e.id] ~= e.since
end

---What a row says of an entry: the question while it waits, else its last line.
---@param e madohub.FleetEntry
---@return string
function M.headline(e)
  local needs = e.needs
  if e.state == 'waiting' and type(needs) == 'table' and type(needs.question) == 'string' and needs.question ~= '' then
    return needs.question
  end
  return type(e.detail) == 'string' and e.detail or ''
end

---@class madohub.FilterToken
---@field field "agent"|"state"|"kind"|"host"|"text"
---@field value string

---The filter's tokens: `a:codex` (agent), `s:waiting` (state), `k:job` (kind), `h:box` (remote host;
---`h:local` this machine's), any other word is text.
---@param filter string
---@return madohub.FilterToken[]
function M.parse_filter(filter)
  local out = {}
  for word in (filter or ''):gmatch('%S+') do
    local prefix, rest = word:match('^([askh]):(.*)$')
    local field = prefix == 'a' and 'agent'
      or prefix == 's' and 'state'
      or prefix == 'k' and 'kind'
      or prefix == 'h' and 'host'
      or 'text'
    out[#out + 1] = { field = field, value = (field == 'text' and word or rest):lower() }
  end
  return out
end

---@param text string
---@param part string
local function has(text, part)
  return text:lower():find(part, 1, true) ~= nil
end

---Whether an entry passes every token (`names` gives an agent's display name, `words` a state's word).
---@param e madohub.FleetEntry
---@param tokens madohub.FilterToken[]
---@param names fun(agent: string): string
---@param words table<string, string>
---@return boolean
function M.matches(e, tokens, names, words)
  for _, t in ipairs(tokens) do
    local ok
    if t.field == 'agent' then
      ok = vim.startswith(e.agent, t.value) or vim.startswith(names(e.agent):lower(), t.value)
    elseif t.field == 'state' then
      ok = vim.startswith(e.state, t.value) or vim.startswith((words[e.state] or ''):lower(), t.value)
    elseif t.field == 'kind' then
      ok = vim.startswith(e.kind, t.value)
    elseif t.field == 'host' then
      local host = (e.host or '') ~= '' and e.host:lower() or 'local'
      ok = vim.startswith(host, t.value)
    else
      ok = has(e.name, t.value)
        or has(e.intent or '', t.value)
        or has(e.agent, t.value)
        or has(names(e.agent), t.value)
        or has(e.cwd, t.value)
        or has(M.headline(e), t.value)
        or has(e.where, t.value)
        or has(e.id, t.value)
    end
    if not ok then
      return false
    end
  end
  return true
end

---The order within a group: pinned first, then the user's order (moved rows before the others),
---then the most recent; in Needs input menus before questions, in Done the unseen first.
---@param ui madohub.PickerUi
---@return fun(a: madohub.FleetEntry, b: madohub.FleetEntry): boolean
function M.compare(ui)
  local function menu(e)
    return type(e.needs) == 'table' and #(e.needs.options or {}) > 0 and 0 or 1
  end
  return function(a, b)
    if a.pinned ~= b.pinned then
      return a.pinned
    end
    if a.state == 'waiting' and b.state == 'waiting' and menu(a) ~= menu(b) then
      return menu(a) < menu(b)
    end
    local ua, ub = M.unseen(a, ui), M.unseen(b, ui)
    if ua ~= ub then
      return ua
    end
    local oa, ob = a.order > 0 and a.order or math.huge, b.order > 0 and b.order or math.huge
    if oa ~= ob then
      return oa < ob
    end
    if a.since ~= b.since then
      return a.since > b.since
    end
    return a.id < b.id
  end
end

---The header's counts: `2 need input · 3 working · 1 done`, of every entry (the filter aside).
---@param entries madohub.FleetEntry[]
---@return string
function M.header(entries)
  local n = { needs = 0, working = 0, done = 0, idle = 0, ended = 0 }
  for _, e in ipairs(entries) do
    local g = group_of_state(e.state) or 'ended'
    n[g] = n[g] + 1
  end
  local parts = {}
  local function add(count, word)
    if count > 0 then
      parts[#parts + 1] = ('%d %s'):format(count, word)
    end
  end
  add(n.needs, n.needs == 1 and 'needs input' or 'need input')
  add(n.working, 'working')
  add(n.done, 'done')
  add(n.idle, 'idle')
  add(n.ended, 'ended')
  return #parts > 0 and table.concat(parts, ' · ') or 'no agents'
end

---The groups and rows to show.
---@param entries madohub.FleetEntry[]
---@param ui madohub.PickerUi
---@param names fun(agent: string): string
---@param words table<string, string>
---@return { header: string, rows: madohub.PickerRow[], shown: integer }
function M.build(entries, ui, names, words)
  local tokens = M.parse_filter(ui.filter)
  local by_group = {}
  local order = {}
  local shown = 0
  for _, e in ipairs(entries) do
    if M.matches(e, tokens, names, words) then
      -- A remote host's folder is that host's: grouped apart from a folder of the same path here.
      local place = (e.host or '') ~= '' and (e.host .. ':' .. e.cwd) or e.cwd
      local key = ui.group_by == 'dir' and ('dir:' .. place) or M.state_group(e)
      if not by_group[key] then
        by_group[key] = {}
        order[#order + 1] = key
      end
      table.insert(by_group[key], e)
      shown = shown + 1
    end
  end
  local groups = {}
  if ui.group_by == 'dir' then
    local here = 'dir:' .. ui.cwd
    table.sort(order, function(a, b)
      if (a == here) ~= (b == here) then
        return a == here
      end
      return a < b
    end)
    for _, key in ipairs(order) do
      local cwd = key:sub(5)
      local remote = cwd:match('^[%w][%w._-]*:/')
      groups[#groups + 1] =
        { key = key, label = cwd == '' and '(no folder)' or remote and cwd or vim.fn.fnamemodify(cwd, ':~') }
    end
  else
    groups = M.STATE_GROUPS
  end
  local rows = {}
  local cmp = M.compare(ui)
  for _, g in ipairs(groups) do
    local list = by_group[g.key]
    if list then
      table.sort(list, cmp)
      local folded = ui.folded[g.key] == true
      rows[#rows + 1] = { group = g.key, label = g.label, count = #list, folded = folded }
      if not folded then
        for _, e in ipairs(list) do
          rows[#rows + 1] = { group = g.key, entry = e }
        end
      end
    end
  end
  return { header = M.header(entries), rows = rows, shown = shown }
end

---The entries of `group` in the order shown, and a new order after moving `id` by `step` (-1 up,
---1 down): the orders (1, 2, …) that changed, by id. Empty when it cannot move.
---@param rows madohub.PickerRow[]
---@param id string
---@param step integer
---@return table<string, integer>
function M.moved(rows, id, step)
  local group, list = nil, {}
  for _, r in ipairs(rows) do
    if r.entry and r.entry.id == id then
      group = r.group
    end
  end
  for _, r in ipairs(rows) do
    if r.entry and r.group == group then
      list[#list + 1] = r.entry
    end
  end
  local at
  for i, e in ipairs(list) do
    if e.id == id then
      at = i
    end
  end
  local to = at and at + step
  if not at or to < 1 or to > #list then
    return {}
  end
  list[at], list[to] = list[to], list[at]
  local changed = {}
  for i, e in ipairs(list) do
    if e.order ~= i then
      changed[e.id] = i
    end
  end
  return changed
end

return M
