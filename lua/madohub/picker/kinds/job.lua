---What the picker does to a background job (of this machine, or of a remote host): through its host,
---by the Node side's calls.
local call = require('madohub.picker.call').call
local jobs = require('madohub.jobs')
local picker = require('madohub.picker')

---A second `x` on the same job within this long kills it.
local KILL_WINDOW_MS = 3000

---@type madohub.PickerKind
local M = { replies = true }

---Attached in a split (a remote host's job through its link); respawned first when it ended.
function M.open(_, e)
  picker.close()
  local id = e.host ~= '' and (e.host .. ':' .. e.short) or e.short
  if e.ended then
    call('respawn', 'respawn', jobs.ref(e), function()
      jobs.attach(id, { running = true })
    end)
  else
    jobs.attach(id)
  end
end

function M.choose(e, choice, said)
  local ref = jobs.ref(e)
  call('answer', 'run', require('madohub.ops').message('answer', { id = ref.id, choice = choice }, ref.host), said)
end

---Stopped gracefully; killed by a second `x` within 3 s.
function M.stop(p, e)
  local now = vim.uv.now()
  local again = p.last_stop and p.last_stop.id == e.id and now - p.last_stop.at <= KILL_WINDOW_MS
  p.last_stop = { id = e.id, at = now }
  if again then
    p.last_stop = nil
    local ref = jobs.ref(e)
    call('kill', 'run', require('madohub.ops').message('kill', { id = ref.id }, ref.host), function()
      picker.say(('killed %s'):format(e.name))
    end)
  else
    local ref = jobs.ref(e)
    call('stop', 'run', require('madohub.ops').message('stop', { id = ref.id, wait = false }, ref.host), function()
      picker.say(('stopping %s (x again within 3 s kills it)'):format(e.name))
    end)
  end
end

---Removed once it ended (its worktree too, only when it holds no unsaved work).
function M.remove(e)
  if not e.ended then
    return picker.say(('%s runs: stop it first (x)'):format(e.name), vim.log.levels.WARN)
  end
  -- Never with force from here: unsaved work in a worktree keeps the job (mado rm --force removes it).
  local ref = jobs.ref(e)
  call('remove', 'run', require('madohub.ops').message('rm', { id = ref.id }, ref.host), function()
    picker.say(('removed %s'):format(e.name))
  end)
end

return M
