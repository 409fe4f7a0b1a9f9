---What the picker does to a background job (of this machine, or of a remote host): through its host,
---by the Node side's calls.
local call = require('madohub.picker.call').call
local jobs = require('madohub.jobs')
local ops = require('madohub.ops')
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
    call('respawn', 'run', ops.job_message('respawn', jobs.ref(e)), function()
      jobs.attach(id, { running = true })
    end)
  else
    jobs.attach(id)
  end
end

function M.choose(e, choice, said)
  call('answer', 'run', ops.job_message('answer', jobs.ref(e), { choice = choice }), said)
end

---Stopped gracefully; killed by a second `x` within 3 s.
function M.stop(p, e)
  local now = vim.uv.now()
  local again = p.last_stop and p.last_stop.id == e.id and now - p.last_stop.at <= KILL_WINDOW_MS
  p.last_stop = { id = e.id, at = now }
  if again then
    p.last_stop = nil
    call('kill', 'run', ops.job_message('kill', jobs.ref(e)), function()
      picker.say(('killed %s'):format(e.name))
    end)
  else
    call('stop', 'run', ops.job_message('stop', jobs.ref(e), { wait = false }), function()
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
  call('remove', 'run', ops.job_message('rm', jobs.ref(e)), function()
    picker.say(('removed %s'):format(e.name))
  end)
end

return M
