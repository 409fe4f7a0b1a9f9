---Background jobs from Neovim: :MadoBackground, :MadoAttach, :MadoStop, :MadoLogs. The Node side
---does the work through the daemon's protocol (`node.call`, never blocking); only :MadoAttach runs
---`mado attach` in a terminal, which is what a person sees.
local config = require('madohub.config')
local util = require('madohub.util')

local M = {}

---@param args string[]
---@return string[]
function M.cmd(args)
  return vim.list_extend({ vim.fn.exepath(config.options.node), util.root() .. '/bin/mado' }, args)
end

---What names a job in a call to the Node side: its id, and its remote host when it runs on one.
---@param e madohub.FleetEntry
---@return { id: string, host: string|nil }
function M.ref(e)
  return { id = e.short, host = (e.host or '') ~= '' and e.host or nil }
end

---A job's id and host from what the user typed: `ID`, `NAME`, or `HOST:ID` of a remote host's job.
---@param id string
---@return { id: string, host: string|nil }
function M.parse_ref(id)
  local host, rest = id:match('^([%w][%w._-]*):(.+)$')
  if host then
    return { id = rest, host = host }
  end
  return { id = id }
end

---Asks the Node side for a job operation without blocking; `done` gets the result in the main loop,
---or nil after the error was told for command `what`.
---@param what string
---@param method string
---@param args table
---@param done fun(result: table|nil)
local function call(what, method, args, done)
  require('madohub').boot()
  require('madohub.node').call(method, args, function(result, err)
    if err then
      done(nil)
      util.notify(('%s failed: %s'):format(what, err), vim.log.levels.ERROR)
      return
    end
    done(result)
  end)
end

---The job a terminal shows when it is `mado attach ID` (opened by :MadoAttach or by hand).
---@param buf integer
---@return string|nil
function M.attached_job(buf)
  if vim.b[buf].madohub_job then
    return vim.b[buf].madohub_job
  end
  -- Opened by hand: the Node side tells it from the terminal's processes (the job's `buf`).
  for _, e in ipairs(require('madohub.fleet').get({ kind = 'job', buf = buf })) do
    return e.short
  end
  return nil
end

---A view of a job (`mado attach`) ended: detached (status 0), it closes, for the job goes on and its
---row in the picker is the one truth; when the job ended or its host went away, it stays with what
---it said.
---@param buf integer
---@param status integer
function M.view_closed(buf, status)
  local job = M.attached_job(buf)
  if not job or status ~= 0 then
    return
  end
  vim.schedule(function()
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      if #vim.api.nvim_tabpage_list_wins(vim.api.nvim_win_get_tabpage(win)) > 1 then
        pcall(vim.api.nvim_win_close, win, true)
      else
        vim.api.nvim_win_call(win, function()
          vim.cmd('enew')
        end)
      end
    end
    pcall(vim.api.nvim_buf_delete, buf, { force = true })
    util.notify_after_terminal_mode(('detached from job %s; it keeps running (:MadoAttach %s)'):format(job, job))
  end)
end

---:MadoAttach ID — the job in a terminal split (its winbar and state apply as to any terminal);
---`HOST:ID` attaches a remote host's job through its link (`mado --host HOST attach ID`).
---@param id string
---@param opts? { running: boolean } `running`: its start was just answered (a remote host's list may not say so yet)
function M.attach(id, opts)
  if not id or id == '' then
    util.notify('usage: :MadoAttach ID|NAME|HOST:ID', vim.log.levels.ERROR)
    return
  end
  -- The id checked first (by the Node side, from the jobs folder): a bad or ended job opens nothing.
  require('madohub').boot()
  local node = require('madohub.node')
  node.ensure()
  local job, err = node.request('job', { id = id })
  if type(job) ~= 'table' then
    util.notify(':MadoAttach: ' .. tostring(err), vim.log.levels.ERROR)
    return
  end
  if job.error then
    util.notify((':MadoAttach: %s'):format(job.error), vim.log.levels.ERROR)
    return
  end
  local host = type(job.host) == 'string' and job.host or nil
  local label = host and (host .. ':' .. job.short) or job.short
  if not job.alive and not (opts and opts.running) then
    local respawn = host and ('mado --host %s respawn %s'):format(host, job.short) or ('mado respawn ' .. job.short)
    util.notify(
      (':MadoAttach: job %s is not running (%s starts it again)'):format(label, respawn),
      vim.log.levels.ERROR
    )
    return
  end
  vim.cmd('botright new')
  util.termopen(M.cmd(host and { '--host', host, 'attach', job.short } or { 'attach', job.short }))
  vim.b.madohub_job = label
  -- Named for the job it shows, not for the node that runs `mado attach`.
  pcall(vim.api.nvim_buf_set_name, 0, ('mado://job/%s'):format(label))
  -- Ctrl-] leaves Terminal mode first, then detaches: the view closes in Normal mode, and no key
  -- typed after it reaches the agent in the window that gets the cursor.
  local buf = vim.api.nvim_get_current_buf()
  vim.keymap.set('t', '<C-]>', function()
    vim.cmd('stopinsert')
    pcall(vim.api.nvim_chan_send, vim.bo[buf].channel, '\29')
  end, { buffer = buf, desc = 'MadoHub: detach from the job (it keeps running)' })
end

---Completion of job ids and names, from the fleet: for :MadoLogs every job, for :MadoAttach and
---:MadoStop (`live`) the jobs that run. A name two jobs share names none (it is refused): not offered.
---@param lead string
---@param live? boolean
---@return string[]
function M.complete(lead, live)
  local ids, names, count = {}, {}, {}
  local all = require('madohub').agents({ kind = 'job' })
  for _, e in ipairs(all) do
    count[e.name] = (count[e.name] or 0) + 1
  end
  for _, e in ipairs(all) do
    if not (live and e.ended) then
      -- A remote host's job completes as `host:id`.
      local short = (e.host or '') ~= '' and (e.host .. ':' .. e.short) or e.short
      if short:sub(1, #lead) == lead then
        ids[#ids + 1] = short
      end
      if e.name ~= '' and count[e.name] == 1 and e.name:sub(1, #lead) == lead and not e.name:find('%c') then
        names[#names + 1] = e.name
      end
    end
  end
  table.sort(names)
  return vim.list_extend(ids, names)
end

---A job's output as text (the lines of its terminal model) in a scratch split, read-only, at its end.
---@param id string
---@param lines string[]
local function show_logs(id, lines)
  util.scratch_split('mado://logs/' .. id, lines)
  vim.cmd('normal! G')
end

---:MadoStop ID
---@param id string
function M.stop(id)
  call(':MadoStop', 'run', require('madohub.ops').job_message('stop', M.parse_ref(id)), function(r)
    if r then
      util.notify(('stopped %s'):format(r.short))
    end
  end)
end

---:MadoLogs ID — the job's recent output in a scratch buffer.
---@param id string
function M.logs(id)
  call(':MadoLogs', 'run', require('madohub.ops').job_message('logs', M.parse_ref(id)), function(r)
    if r then
      show_logs(r.short, r.lines)
    end
  end)
end

---How long a terminal's agent may take to end once stopped (Neovim kills it after 2 s).
local STOP_WAIT_MS = 5000

---Stops the program of terminal `buf` and calls `done` once it has ended (true), or after
---STOP_WAIT_MS (false). Its watcher is let go first: an agent stopped to go on elsewhere has not
---exited, and nothing tells it did.
---@param buf integer
---@param done fun(ended: boolean)
local function stop_terminal(buf, done)
  local chan = vim.bo[buf].channel
  require('madohub.watch').forget(buf)
  pcall(vim.fn.jobstop, chan)
  local timer = assert(vim.uv.new_timer())
  local started = vim.uv.now()
  local finished = false
  timer:start(
    20,
    20,
    vim.schedule_wrap(function()
      -- A busy editor may run several of these queued: the first that finds the end ends it.
      if finished then
        return
      end
      local ok, status = pcall(vim.fn.jobwait, { chan }, 0)
      local ended = not ok or status[1] ~= -1
      if ended or vim.uv.now() - started > STOP_WAIT_MS then
        finished = true
        timer:stop()
        timer:close()
        done(ended)
      end
    end)
  )
end

---The terminal's agent went on as job `short`: its split is freed, its pin goes with it.
---@param buf integer
---@param short string
---@param pinned boolean
local function backgrounded(buf, short, pinned)
  if vim.api.nvim_buf_is_valid(buf) then
    require('madohub.watch').forget(buf)
    pcall(vim.fn.jobstop, vim.bo[buf].channel)
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  if pinned then
    require('madohub.node').call('mark', { id = require('madohub.ids').job(short), pinned = true }, function() end)
  end
  util.notify(('backgrounded · %s (:MadoAttach %s)'):format(short, short))
end

---:MadoBackground [prompt] — the current terminal's agent goes on as a background job, and the
---split is freed, with its name and pin. A live agent whose session can be resumed (Claude Code,
---Codex, Copilot CLI, Qwen Code, Pi) is stopped first, then its session resumed in the job (an
---agent that locks its session would refuse a second process); also after it exited. Other agents
---get the prompt given, or the one they echoed while they run, and are stopped once the job is up.
---The daemon is asked first whether the job would start: when not, nothing changes.
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
  local job = M.attached_job(buf)
  if job then
    util.notify(('this terminal shows job %s, which already runs in the background'):format(job), vim.log.levels.ERROR)
    return
  end
  local st = require('madohub').state(buf)
  -- No state yet: Node takes it for a shell (its fallback agent).
  local agent = st and st.agent or nil
  local session = require('madohub.node').request('session', { buf = buf })
  local function field(name)
    local v = type(session) == 'table' and session[name] or nil
    return v ~= vim.NIL and v or nil
  end
  local session_id, intent = field('sessionId'), field('intent')
  local exited = st and st.state == 'exited'
  local entry = require('madohub.fleet').terminal(buf)
  local pinned = entry ~= nil and entry.pinned == true
  local args = {
    agent = agent,
    name = entry and entry.name or nil,
    cwd = vim.fn.getcwd(),
    cols = vim.api.nvim_win_get_width(0),
    rows = vim.api.nvim_win_get_height(0),
  }
  if session_id and field('resumable') then
    -- Node says whether the agent's job template resumes sessions: Lua keeps no list of agents.
    args.resume = session_id
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
    args.prompt = prompt ~= '' and prompt or intent
  else
    util.notify('Nothing to background yet (no session to resume here; give a prompt)', vim.log.levels.WARN)
    return
  end
  -- Asynchronous: a daemon's cold start can take seconds, and the editor must not wait for it.
  vim.b[buf].madohub_backgrounding = true
  local function settle()
    if vim.api.nvim_buf_is_valid(buf) then
      vim.b[buf].madohub_backgrounding = nil
    end
  end
  if not args.resume or exited then
    call(':MadoBackground', 'background', args, function(r)
      settle()
      if r then
        backgrounded(buf, r.short, pinned)
      end
    end)
    return
  end
  -- A live session: asked whether it would start, its agent stopped, then resumed as the job.
  call(':MadoBackground', 'background', vim.tbl_extend('force', args, { check = true }), function(ok)
    if not ok then
      return settle()
    end
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    stop_terminal(buf, function(ended)
      if not ended then
        settle()
        util.notify(
          ('the agent here did not end within %d s: :MadoBackground again once it has'):format(STOP_WAIT_MS / 1000),
          vim.log.levels.ERROR
        )
        return
      end
      call(':MadoBackground', 'background', args, function(r)
        settle()
        if r then
          return backgrounded(buf, r.short, pinned)
        end
        -- Its agent was stopped for it: the session is there to resume.
        util.notify(
          ('the agent here was stopped; its session goes on with `mado --bg --resume %s`'):format(args.resume),
          vim.log.levels.WARN
        )
      end)
    end)
  end)
end

return M
