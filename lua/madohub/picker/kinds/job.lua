---What the picker does to a background job: through its host, by the Node side's calls.
local call = require('madohub.picker.call').call
local picker = require('madohub.picker')

---A second `x` on the same job within this long kills it.
local KILL_WINDOW_MS = 3000

---@type madohub.PickerKind
local M = { replies = true }

---Attached in a split; respawned first when it ended.
function M.open(_, e)
  picker.close()
  if e.state == 'exited' or e.state == 'failed' then
    call('respawn', 'respawn', { id = e.short }, function()
      require('madohub.jobs').attach(e.short)
    end)
  else
    require('madohub.jobs').attach(e.short)
  end
end

function M.choose(e, choice, said)
  call('answer', 'choose', { id = e.short, choice = choice }, said)
end

---Stopped gracefully; killed by a second `x` within 3 s.
function M.stop(p, e)
  local now = vim.uv.now()
  local again = p.last_stop and p.last_stop.id == e.id and now - p.last_stop.at <= KILL_WINDOW_MS
  p.last_stop = { id = e.id, at = now }
  if again then
    p.last_stop = nil
    call('kill', 'kill', { id = e.short }, function()
      picker.say(('killed %s'):format(e.name))
    end)
  else
    call('stop', 'stop', { id = e.short, wait = false }, function()
      picker.say(('stopping %s (x again within 3 s kills it)'):format(e.name))
    end)
  end
end

---Removed once it ended (its worktree too, only when it holds no unsaved work).
function M.remove(e)
  if e.state ~= 'exited' and e.state ~= 'failed' then
    return picker.say(('%s runs: stop it first (x)'):format(e.name), vim.log.levels.WARN)
  end
  call('remove', 'remove', { id = e.short }, function()
    picker.say(('removed %s'):format(e.name))
  end)
end

return M
