---What the picker's keys do. Each action acts on the row under the cursor through one primitive per
---kind of entry: a terminal of this Neovim through its channel (reply.lua, via the Node side's rules),
---a job through its host (Node's calls), another Neovim through its server address.
local input = require('madohub.picker.input')
local picker = require('madohub.picker')
local view = require('madohub.picker.view')

local M = {}
local H = {}

---A second `x` on the same job within this long kills it.
local KILL_WINDOW_MS = 3000

local term_buf = require('madohub.picker.call').term_buf

---@param e madohub.FleetEntry
---@return string
local function short(e)
  return e.short
end

H.call = require('madohub.picker.call').call

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
---another Neovim shows its terminal; a session elsewhere says where it runs.
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
  if e.kind == 'terminal' then
    picker.close()
    require('madohub').show_terminal(term_buf(e) or -1)
  elseif e.kind == 'job' then
    picker.close()
    if e.state == 'exited' or e.state == 'failed' then
      H.call('respawn', 'respawn', { id = short(e) }, function()
        require('madohub.jobs').attach(short(e))
      end)
    else
      require('madohub.jobs').attach(short(e))
    end
  elseif e.kind == 'editor' then
    H.show_in_editor(e)
  elseif #e.attach > 0 and vim.fn.executable(e.attach[1]) == 1 then
    -- A background session of an agent's: attached in a split by the command its module gives.
    picker.close()
    vim.cmd('botright new')
    require('madohub.util').termopen(e.attach)
  else
    picker.say(H.where_session(e))
  end
end

---Asks another Neovim, through the Node side (over its server address, answered within 1 s: a peer
---stopped with Ctrl-Z never blocks this one), to show its terminal.
---@param e madohub.FleetEntry
function H.show_in_editor(e)
  local util = require('madohub.util')
  local pid, buf = util.value(e.pid), util.value(e.peerBuf)
  if e.server == '' or not buf then
    return picker.say(('nvim %s has no server address: go to it'):format(pid or '?'), vim.log.levels.WARN)
  end
  H.call(('nvim %s'):format(pid), 'editor_show', { server = e.server, buf = buf }, function(r)
    if r.shown == true then
      picker.say(('nvim %s shows %s (buffer %s)'):format(pid, e.name, buf))
    else
      picker.say(('nvim %s did not show buffer %s: it is gone'):format(pid, buf), vim.log.levels.ERROR)
    end
  end)
end

---Where a Claude Code session outside runs: its folder, process and terminal.
---@param e madohub.FleetEntry
---@return string
function H.where_session(e)
  return ('%s runs outside this Neovim: %s, in %s%s'):format(
    e.name,
    e.where,
    vim.fn.fnamemodify(e.cwd, ':~'),
    e.tty ~= '' and (', on ' .. e.tty) or ''
  )
end

function run.peek(p)
  require('madohub.picker.peek').toggle(p)
end

function run.reply(p)
  local e = H.entry(p)
  if not e then
    return
  end
  if e.kind ~= 'terminal' and e.kind ~= 'job' then
    return picker.say(('answer %s where it runs (%s)'):format(e.name, e.where), vim.log.levels.WARN)
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
  if e.kind == 'terminal' then
    local buf = term_buf(e)
    -- The screen as it is now: the Node side checks the menu is still on it.
    local snap = buf and vim.api.nvim_buf_is_valid(buf) and require('madohub.watch').snapshot(buf)
    H.call('answer', 'terminal_choose', { buf = buf, choice = choice, lines = snap and snap.lines or {} }, said)
  elseif e.kind == 'job' then
    H.call('answer', 'choose', { id = short(e), choice = choice }, said)
  else
    picker.say(('answer %s where it runs (%s)'):format(e.name, e.where), vim.log.levels.WARN)
  end
end

function run.filter(p)
  input.open(p, 'filter', nil, p.ui.filter)
end

function run.rename(p)
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
  local now = vim.uv.now()
  if e.kind == 'job' then
    local again = p.last_stop and p.last_stop.id == e.id and now - p.last_stop.at <= KILL_WINDOW_MS
    p.last_stop = { id = e.id, at = now }
    if again then
      p.last_stop = nil
      H.call('kill', 'kill', { id = short(e) }, function()
        picker.say(('killed %s'):format(e.name))
      end)
    else
      H.call('stop', 'stop', { id = short(e), wait = false }, function()
        picker.say(('stopping %s (x again within 3 s kills it)'):format(e.name))
      end)
    end
  elseif e.kind == 'terminal' then
    local buf = term_buf(e)
    local chan = buf and vim.api.nvim_buf_is_valid(buf) and vim.bo[buf].channel or 0
    if chan > 0 and vim.fn.jobstop(chan) == 1 then
      picker.say(('stopped %s (its terminal’s program ends; the buffer stays)'):format(e.name))
    else
      picker.say(('%s has no running program'):format(e.name), vim.log.levels.WARN)
    end
  else
    picker.say(('stop %s where it runs (%s)'):format(e.name, e.where), vim.log.levels.WARN)
  end
end

function run.remove(p)
  local e = H.entry(p)
  if not e then
    return
  end
  if e.kind ~= 'job' then
    return picker.say('only a background job can be removed here', vim.log.levels.WARN)
  end
  if e.state ~= 'exited' and e.state ~= 'failed' then
    return picker.say(('%s runs: stop it first (x)'):format(e.name), vim.log.levels.WARN)
  end
  H.call('remove', 'remove', { id = short(e) }, function()
    picker.say(('removed %s'):format(e.name))
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
