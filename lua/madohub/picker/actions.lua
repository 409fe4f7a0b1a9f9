---What the picker's keys do. Each action acts on the row under the cursor through one primitive per
---kind of entry (picker/kinds/): a terminal of this Neovim through its buffer and channel (and the
---Node side's rules), a job through its host (Node's calls), another Neovim through its server
---address, a session elsewhere by its agent's attach command. A kind without a verb says where to do it.
local input = require('madohub.picker.input')
local picker = require('madohub.picker')
local view = require('madohub.picker.view')

local M = {}
local H = {}

---@class madohub.PickerKind
---@field open fun(p: madohub.Picker, e: madohub.FleetEntry) shows it, attaches to it, or says where it runs
---@field choose? fun(e: madohub.FleetEntry, choice: integer, said: fun(result: table)) answers its numbered menu
---@field stop? fun(p: madohub.Picker, e: madohub.FleetEntry) ends its agent (or its program)
---@field remove? fun(e: madohub.FleetEntry) removes it once ended
---@field replies? boolean whether a reply typed in the picker reaches it

---The primitives of each kind of entry.
---@type table<madohub.FleetKind, madohub.PickerKind>
local KINDS = {
  terminal = require('madohub.picker.kinds.terminal'),
  job = require('madohub.picker.kinds.job'),
  editor = require('madohub.picker.kinds.editor'),
  session = require('madohub.picker.kinds.session'),
}

H.call = require('madohub.picker.call').call

---The primitives of an entry's kind (one the cache does not know is told where it runs).
---@param e madohub.FleetEntry
---@return madohub.PickerKind
function H.kind(e)
  return KINDS[e.kind] or KINDS.session
end

---@param p madohub.Picker
---@return madohub.FleetEntry|nil
function H.entry(p)
  local e = picker.entry(p)
  if not e then
    picker.say('no agent on this row', vim.log.levels.WARN)
  end
  return e
end

---@type table<string, fun(p: madohub.Picker, key: string)>
local run = {}

function run.down(p)
  picker.move(p, 1)
end

function run.up(p)
  picker.move(p, -1)
end

---Opens the row: a group folds; a terminal shows; a job attaches (respawned first when it ended);
---another Neovim shows its terminal; a session elsewhere attaches or says where it runs.
function run.open(p)
  local r = picker.row(p)
  if r and r.label then
    return run.fold(p)
  end
  local e = H.entry(p)
  if not e then
    return
  end
  p.ui.seen[e.id] = e.since
  H.kind(e).open(p, e)
end

---Says that `e` is to be acted on where it runs.
---@param verb string
---@param e madohub.FleetEntry
function H.elsewhere(verb, e)
  picker.say(('%s %s where it runs (%s)'):format(verb, e.name, e.where), vim.log.levels.WARN)
end

function run.peek(p)
  require('madohub.picker.peek').toggle(p)
end

---A key that opens the input line for the row's agent, on a row with none (a group's header): the
---line opens all the same and takes what is typed after the key, which acts on nothing (typed on,
---a reply's words would run the list's keys: `n` a new job, `i` …).
---@param p madohub.Picker
---@param mode "reply"|"rename"
---@return boolean opened
function H.no_agent_line(p, mode)
  local r = picker.row(p)
  if not (r and r.label) then
    return false
  end
  input.open(p, mode, nil, '')
  return true
end

function run.reply(p)
  if H.no_agent_line(p, 'reply') then
    return
  end
  local e = H.entry(p)
  if not e then
    return
  end
  if not H.kind(e).replies then
    return H.elsewhere('answer', e)
  end
  input.open(p, 'reply', e.id, '')
end

---Answers the numbered menu on the row's screen with the key's number.
function run.choose(p, key)
  local e = H.entry(p)
  local choice = tonumber(key)
  if not e or not choice then
    return
  end
  if e.state ~= 'waiting' then
    return picker.say(('%s does not wait for an answer'):format(e.name), vim.log.levels.WARN)
  end
  ---@param result { option: string|nil }|nil the choice's text as the screen showed it when answered
  local function said(result)
    local option = type(result) == 'table' and type(result.option) == 'string' and result.option or ''
    picker.say(('answered %s: %d. %s'):format(e.name, choice, option))
  end
  local choose = H.kind(e).choose
  if not choose then
    return H.elsewhere('answer', e)
  end
  choose(e, choice, said)
end

---The row's entry when it is a terminal or a job (what MadoHub acts on itself); else nil, said.
---@param p madohub.Picker
---@param verb string
---@return madohub.FleetEntry|nil
function H.own_entry(p, verb)
  local e = H.entry(p)
  if e and e.kind ~= 'terminal' and e.kind ~= 'job' then
    H.elsewhere(verb, e)
    return nil
  end
  return e
end

---Opens the review of the row's last turn in a tab (a terminal's or a job's, here or on its host).
function run.review(p)
  local e = H.own_entry(p, 'review')
  if not e then
    return
  end
  picker.close()
  require('madohub.review').open(e.id)
end

function run.filter(p)
  input.open(p, 'filter', nil, p.ui.filter)
end

function run.rename(p)
  if H.no_agent_line(p, 'rename') then
    return
  end
  local e = H.entry(p)
  if e then
    input.open(p, 'rename', e.id, e.name)
  end
end

function run.pin(p)
  local e = H.entry(p)
  if e then
    H.call('pin', 'mark', { id = e.id, pinned = not e.pinned }, function()
      picker.say((e.pinned and 'unpinned %s' or 'pinned %s'):format(e.name))
    end)
  end
end

---Stops the row's agent: a job gracefully, and killed by a second `x` within 3 s; a terminal's
---program ends (its window stays).
function run.stop(p)
  local e = H.entry(p)
  if not e then
    return
  end
  local stop = H.kind(e).stop
  if not stop then
    return H.elsewhere('stop', e)
  end
  stop(p, e)
end

function run.remove(p)
  local e = H.entry(p)
  if not e then
    return
  end
  local remove = H.kind(e).remove
  if not remove then
    return picker.say('only a background job can be removed here', vim.log.levels.WARN)
  end
  remove(e)
end

---Mutes the row's agent (every state), or unmutes it: |:MadoMute|.
function run.mute(p)
  local e = H.own_entry(p, 'mute')
  if not e then
    return
  end
  local muted = require('madohub.attention').mutes[e.id] ~= nil
  H.call('mute', 'mute', { id = e.id, states = {}, on = not muted }, function(res)
    picker.say(('%s: %s'):format(e.name, res))
    picker.render(p)
  end)
end

function run.seen(p)
  local e = H.entry(p)
  if not e then
    return
  end
  if view.unseen(e, p.ui) then
    p.ui.seen[e.id] = e.since
  else
    p.ui.seen[e.id] = nil
  end
  picker.render(p)
end

function run.new(p)
  input.open(p, 'new', nil, '')
end

function run.new_attach(p)
  input.open(p, 'new', nil, '', true)
end

function run.group_by(p)
  p.ui.group_by = p.ui.group_by == 'dir' and 'state' or 'dir'
  picker.render(p)
end

function run.fold(p)
  local r = picker.row(p)
  if not r then
    return
  end
  p.ui.folded[r.group] = not p.ui.folded[r.group] or nil
  p.selected = 'group:' .. r.group
  picker.render(p)
end

---@param p madohub.Picker
---@param step integer
function H.move(p, step)
  local e = H.entry(p)
  if not e then
    return
  end
  local orders = {}
  for id, order in pairs(view.moved(p.rows, e.id, step)) do
    orders[#orders + 1] = { id = id, order = order }
  end
  -- One call: the group is drawn again once every order is kept, never half moved.
  if #orders > 0 then
    H.call('move', 'reorder', { orders = orders })
  end
end

function run.move_up(p)
  H.move(p, -1)
end

function run.move_down(p)
  H.move(p, 1)
end

function run.help(p)
  require('madohub.picker.help').toggle(p)
end

function run.close()
  picker.close()
end

---Esc: the help, then the peek pane, then the filter, then the picker.
function run.back(p)
  if p.help_win then
    require('madohub.picker.help').toggle(p)
  elseif p.peek_win then
    require('madohub.picker.peek').toggle(p)
  elseif p.ui.filter ~= '' then
    p.ui.filter = ''
    picker.render(p)
  else
    picker.close()
  end
end

---Runs action `name` (a key pressed in the list).
---@param p madohub.Picker
---@param name string
---@param key string
function M.run(p, name, key)
  local fn = run[name]
  if fn then
    fn(p, key)
  end
end

---The actions by name (a test checks that each of keys.lua's has one).
M.names = run
return M
