---Background jobs from Neovim: :MadoBackground, :MadoAttach, :MadoStop, :MadoLogs. They run the
---plugin's own `mado` (bin/mado with the configured Node), which talks to the daemon.
local config = require('madohub.config')
local util = require('madohub.util')

local M = {}

---@param args string[]
---@return string[]
function M.cmd(args)
  return vim.list_extend({ vim.fn.exepath(config.options.node), util.root() .. '/bin/mado' }, args)
end

---Says why `mado` failed for command `what`.
---@param what string
---@param r { code: integer, stdout: string, stderr: string }
local function say_failure(what, r)
  local msg = vim.trim(r.stderr ~= '' and r.stderr or r.stdout)
  util.notify(('%s failed: %s'):format(what, msg ~= '' and msg or ('exit ' .. r.code)), vim.log.levels.ERROR)
end

---Runs `mado args` for command `what` without waiting; `done` gets the result on success, or nil
---on failure, which is then told (in the main loop either way).
---@param what string
---@param args string[]
---@param done fun(r: { code: integer, stdout: string, stderr: string }|nil)
local function run(what, args, done)
  local ok, err = pcall(vim.system, M.cmd(args), { text = true, timeout = 60000 }, function(res)
    vim.schedule(function()
      local r = { code = res.code, stdout = res.stdout or '', stderr = res.stderr or '' }
      if r.code == 0 then
        return done(r)
      end
      done(nil)
      say_failure(what, r)
    end)
  end)
  if not ok then
    done(nil)
    say_failure(what, { code = -1, stdout = '', stderr = tostring(err) })
  end
end

---The job a terminal shows when it is `mado attach ID` (opened by :MadoAttach or by hand).
---@param buf integer
---@return string|nil
local function attached_job(buf)
  if vim.b[buf].madohub_job then
    return vim.b[buf].madohub_job
  end
  return vim.api.nvim_buf_get_name(buf):match('mado attach (%x+)')
end

---:MadoAttach ID — the job in a terminal split (its winbar and state apply as to any terminal).
---@param id string
function M.attach(id)
  if not id or id == '' then
    util.notify('usage: :MadoAttach ID', vim.log.levels.ERROR)
    return
  end
  -- The id checked first (by the Node side, from the jobs folder): a bad or ended job opens nothing.
  require('madohub').boot()
  local node = require('madohub.node')
  if not node.running() then
    node.start()
  end
  local job, err = node.request('job', id)
  if type(job) ~= 'table' then
    util.notify(':MadoAttach: ' .. tostring(err), vim.log.levels.ERROR)
    return
  end
  if job.error then
    util.notify((':MadoAttach: %s'):format(job.error), vim.log.levels.ERROR)
    return
  end
  if not job.alive then
    util.notify((':MadoAttach: job %s is not running (mado respawn %s starts it again)'):format(job.short, job.short), vim.log.levels.ERROR)
    return
  end
  vim.cmd('botright new')
  util.termopen(M.cmd({ 'attach', job.short }))
  vim.b.madohub_job = job.short
end

---Completion of job ids (and names) for :MadoAttach, :MadoStop, :MadoLogs, from the fleet.
---@param lead string
---@return string[]
function M.complete(lead)
  local out = {}
  for _, e in ipairs(require('madohub').agents({ kind = 'job' })) do
    local short = e.id:sub(5)
    if short:sub(1, #lead) == lead then
      out[#out + 1] = short
    end
  end
  return out
end

---The text of `mado logs` in a scratch split, read-only, at its end.
---@param id string
---@param output string
local function show_logs(id, output)
  -- Terminal control sequences out; carriage returns as line ends.
  local text = output:gsub('\27%][^\7]*\7', ''):gsub('\27%[[%d;?]*[%a@]', ''):gsub('\r\n', '\n'):gsub('\r', '\n')
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, 'mado://logs/' .. id)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  vim.cmd('normal! G')
end

---:MadoStop ID
---@param id string
function M.stop(id)
  run(':MadoStop', { 'stop', id }, function(r)
    if r then
      util.notify(vim.trim(r.stdout))
    end
  end)
end

---:MadoLogs ID — the job's recent output in a scratch buffer.
---@param id string
function M.logs(id)
  run(':MadoLogs', { 'logs', id }, function(r)
    if r then
      show_logs(id, r.stdout)
    end
  end)
end

---:MadoBackground [prompt] — the current terminal's agent goes on as a background job, and the
---split is freed. Claude Code and Codex resume their session (from their records), also after they
---exited; other agents get the prompt given, or the one they echoed while they run. The dispatch
---comes first: when it fails, nothing changes.
---@param prompt string
function M.background(prompt)
  local buf = vim.api.nvim_get_current_buf()
  if vim.bo[buf].buftype ~= 'terminal' then
    util.notify(':MadoBackground works in a terminal buffer', vim.log.levels.ERROR)
    return
  end
  if vim.b[buf].madohub_backgrounding then
    util.notify('this terminal is being backgrounded already', vim.log.levels.WARN)
    return
  end
  local job = attached_job(buf)
  if job then
    util.notify(('this terminal shows job %s, which already runs in the background'):format(job), vim.log.levels.ERROR)
    return
  end
  local st = require('madohub').state(buf)
  local agent = st and st.agent or 'shell'
  local session = require('madohub.node').request('session', buf)
  local function field(name)
    local v = type(session) == 'table' and session[name] or nil
    return v ~= vim.NIL and v or nil
  end
  local session_id, intent = field('sessionId'), field('intent')
  local exited = st and st.state == 'exited'
  local args
  if session_id and field('resumable') then
    -- Node says whether the agent's job template resumes sessions: Lua keeps no list of agents.
    args = { '--bg', '--agent', agent, '--resume', session_id }
  elseif exited and prompt == '' then
    -- Its agent has ended and left no session to resume: running its old prompt again would start
    -- over what was done.
    util.notify(
      'The agent here has exited and left no session to resume (give a prompt to start a new job)',
      vim.log.levels.WARN
    )
    return
  elseif prompt ~= '' or intent then
    -- Another agent starts again with the prompt given, else the first one it echoed here.
    args = { '--bg', '--agent', agent, '--', prompt ~= '' and prompt or intent }
  else
    util.notify('Nothing to background yet (no session to resume here; give a prompt)', vim.log.levels.WARN)
    return
  end
  -- Asynchronous: a daemon's cold start can take seconds, and the editor must not wait for it.
  vim.b[buf].madohub_backgrounding = true
  run(':MadoBackground', args, function(r)
    if vim.api.nvim_buf_is_valid(buf) then
      vim.b[buf].madohub_backgrounding = nil
    end
    if not r then
      return
    end
    local short = r.stdout:match('backgrounded · (%x+)')
    if vim.api.nvim_buf_is_valid(buf) then
      pcall(vim.fn.jobstop, vim.bo[buf].channel)
      vim.api.nvim_buf_delete(buf, { force = true })
    end
    util.notify(('backgrounded · %s (:MadoAttach %s)'):format(short or '?', short or ''))
  end)
end

return M
