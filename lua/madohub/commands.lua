local M = {}

---:MadoStatus — one line per watched terminal, then one per background job.
function M.status()
  local madohub = require('madohub')
  if not madohub.configured then
    vim.notify('madohub: not set up (no terminal opened yet, or setup() failed)', vim.log.levels.WARN)
    return
  end
  local watch = require('madohub.watch')
  local label = require('madohub.ui.label')
  local node = require('madohub.node')
  local lines = {
    ('Node process: %s'):format(node.running() and ('running, pid ' .. tostring(node.pid())) or 'not running'),
  }
  local bufs = watch.buffers()
  table.sort(bufs)
  ---@param text string
  ---@return string the first 40 characters (not bytes: a label holds ✓ and spinner glyphs), padded
  local function column(text)
    local cut = vim.fn.strcharpart(text, 0, 40)
    return cut .. string.rep(' ', 40 - vim.fn.strdisplaywidth(cut))
  end
  for _, buf in ipairs(bufs) do
    local st = madohub.state(buf)
    -- Its name as the picker and the winbar give it, else the buffer's.
    local entry = require('madohub.fleet').terminal(buf)
    local name = entry and entry.name or vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':t')
    local spent = entry and require('madohub.usage').row(entry) or ''
    lines[#lines + 1] = ('%4d  %s  %s%s%s'):format(
      buf,
      column(st and label.text(st) or '(no state yet)'),
      name,
      spent ~= '' and ('  · ' .. spent) or '',
      st and st.detail ~= '' and ('  — ' .. st.detail) or ''
    )
  end
  if #bufs == 0 then
    lines[#lines + 1] = 'No terminal watched.'
  end
  -- The background jobs, from the fleet (|madohub.agents()|).
  local jobs = madohub.agents({ kind = 'job' })
  if #jobs > 0 then
    lines[#lines + 1] = 'Jobs:'
    for _, e in ipairs(jobs) do
      local spent = require('madohub.usage').row(e)
      lines[#lines + 1] = ('%s  %s  %s%s%s'):format(
        e.short,
        column(label.text(e)),
        e.name,
        spent ~= '' and ('  · ' .. spent) or '',
        e.detail ~= '' and ('  — ' .. e.detail) or ''
      )
    end
  end
  -- What they spent today, all of them (|madohub-usage|).
  local today = require('madohub.usage').today()
  if today ~= '' then
    lines[#lines + 1] = 'Spent: ' .. today
  end
  vim.api.nvim_echo({ { table.concat(lines, '\n') } }, false, {})
end

---:MadoExplain — why the terminal in the current window has its state: the rule that decided and its
---line, the agent and how it was told, the rules passed over, what the records say. In a scratch
---split (`q` closes it), to read or to paste into a bug report.
function M.explain()
  local util = require('madohub.util')
  local buf = vim.api.nvim_get_current_buf()
  if vim.bo[buf].buftype ~= 'terminal' then
    util.notify(':MadoExplain works in a terminal buffer', vim.log.levels.ERROR)
    return
  end
  local snap = require('madohub.watch').snapshot(buf)
  if not snap then
    util.notify('this terminal is not watched (see :checkhealth madohub)', vim.log.levels.ERROR)
    return
  end
  local res, err = require('madohub.node').request('explain', snap)
  if type(res) ~= 'table' or type(res.lines) ~= 'table' then
    util.notify('cannot explain: ' .. tostring(err or 'no answer'), vim.log.levels.ERROR)
    return
  end
  util.scratch_split('mado://explain/' .. buf, res.lines)
end

---The fleet entry the user names (an id, a job's short id, a name as the picker shows it), or the
---agent in the current window (a terminal's, or the job it shows); nil and why not.
---@param name string
---@return madohub.FleetEntry|nil
---@return string|nil
local function entry_named(name)
  local e, why = require('madohub.fleet').named(name)
  if not e and name == '' then
    why = 'no agent in this window: name one (:MadoMute {name} [state ...])'
  end
  return e, why
end

---The states `:MadoMute` takes after the agent's name: those a notice can be of (|madohub-notify|).
local MUTE_STATES = require('madohub.config').defaults.notify.states

---The states of MUTE_STATES, in order, for a message.
---@return string
local function mute_states()
  local names = vim.tbl_keys(MUTE_STATES)
  table.sort(names)
  return table.concat(names, ', ')
end

---How long :MadoMute waits for the fleet when it starts the Node process (before any terminal).
local FLEET_WAIT_MS = 3000

---The entry the words of :MadoMute name and the states after them, or nil and why not.
---@param args string[]
---@return madohub.FleetEntry|nil
---@return string[]|string
local function mute_target(args)
  -- The leading words that name an agent (a name may hold spaces: the longest that names one); the
  -- words after them are states, each one that a notice can be of.
  local named = #args
  while named > 0 and MUTE_STATES[args[named]] do
    named = named - 1
  end
  local e, why, cut
  -- No name (states alone, or nothing): the agent in the current window.
  for n = #args, named == 0 and 0 or 1, -1 do
    local found, err = entry_named(table.concat(vim.list_slice(args, 1, n), ' '))
    if found then
      e, cut = found, n
      break
    end
    why = n == named and err or why
  end
  if not e then
    return nil, why or ('no agent %q (:MadoAgents lists them)'):format(table.concat(args, ' '))
  end
  local states = vim.list_slice(args, cut + 1, #args)
  for _, st in ipairs(states) do
    if not MUTE_STATES[st] then
      return nil, ('unknown state %q (:MadoMute {name} [state ...] takes %s)'):format(st, mute_states())
    end
  end
  return e, states
end

---:MadoMute [{agent}] [{state} ...] — no notification of that agent (in those states only, when
---named); with a bang, notifications again. No agent: the one in the current window. Before any
---terminal (no Node process yet), it starts the fleet and waits for it (FLEET_WAIT_MS at most).
---@param args string[]
---@param bang boolean
function M.mute(args, bang)
  local util = require('madohub.util')
  local node = require('madohub.node')
  local e, states = mute_target(args)
  if not e and not node.running() then
    require('madohub').boot()
    node.ensure()
    local settled = false
    local function try()
      e, states = mute_target(args)
      if e and not settled then
        settled = true
        M.mute(args, bang)
      end
      return settled
    end
    local au = vim.api.nvim_create_autocmd('User', { pattern = 'MadoFleetChanged', callback = try })
    vim.defer_fn(function()
      pcall(vim.api.nvim_del_autocmd, au)
      if not settled and not try() then
        util.notify(tostring(states), vim.log.levels.ERROR)
      end
    end, FLEET_WAIT_MS)
    return
  end
  if not e then
    util.notify(tostring(states), vim.log.levels.ERROR)
    return
  end
  node.call('mute', { id = e.id, states = states, on = not bang }, function(res, err)
    if err then
      util.notify('cannot mute ' .. e.name .. ': ' .. err, vim.log.levels.ERROR)
    else
      util.notify(('%s: %s'):format(e.name, res))
    end
  end)
end

---Completion of :MadoMute: the fleet's names, then the states.
---@param lead string
---@return string[]
function M.complete_mute(lead)
  local out = require('madohub.fleet').names(lead)
  for st in pairs(MUTE_STATES) do
    if vim.startswith(st, lead) then
      out[#out + 1] = st
    end
  end
  table.sort(out)
  return out
end

---@class madohub.HostStatus
---@field host string
---@field online boolean
---@field reason string why it is offline ('' while online, or before its first answer)
---@field version string its mado's version, once it answered
---@field jobs integer the jobs it lists

---The remote hosts the Node side follows (starting it when it does not run), or nil and why not.
---@return madohub.HostStatus[]|nil
---@return string|nil
local function host_status()
  require('madohub').boot()
  local node = require('madohub.node')
  node.ensure()
  local hosts, err = node.request('hosts_status', {})
  if type(hosts) ~= 'table' then
    return nil, tostring(err)
  end
  return hosts
end

---:MadoHosts — each remote host (|madohub-hosts|): online with its mado's version and its jobs, or
---offline with why. `:MadoHosts retry [NAME]` tries the offline ones (or NAME) at once.
---@param args string[]
function M.hosts(args)
  local util = require('madohub.util')
  local hosts, err = host_status()
  if not hosts then
    return util.notify(':MadoHosts: ' .. err, vim.log.levels.ERROR)
  end
  if args[1] == 'retry' then
    local name = args[2]
    if name and not vim.iter(hosts):any(function(h)
      return h.host == name
    end) then
      return util.notify((':MadoHosts retry: no host %q (see :help madohub-hosts)'):format(name), vim.log.levels.ERROR)
    end
    local res = require('madohub.node').request('hosts_retry', { host = name })
    local tried = type(res) == 'table' and res.tried or {}
    if #tried == 0 then
      return util.notify(name and (name .. ' is online or being tried now') or 'no host is offline: nothing to try')
    end
    return util.notify('trying again: ' .. table.concat(tried, ', '))
  elseif args[1] ~= nil then
    return util.notify(':MadoHosts: usage: :MadoHosts [retry [NAME]]', vim.log.levels.ERROR)
  end
  if #hosts == 0 then
    return vim.api.nvim_echo(
      { { 'No remote host (hosts.json and setup({ hosts }) name none: :help madohub-hosts)' } },
      false,
      {}
    )
  end
  local chunks = {}
  for i, h in ipairs(hosts) do
    local line = h.online
        and ('%s  online  mado %s  %d job%s'):format(h.host, h.version, h.jobs, h.jobs == 1 and '' or 's')
      or ('%s  offline%s'):format(h.host, h.reason ~= '' and (': ' .. h.reason) or ' (connecting)')
    chunks[#chunks + 1] = h.online and { line } or { line, 'MadoFailed' }
    if i < #hosts then
      chunks[#chunks + 1] = { '\n' }
    end
  end
  vim.api.nvim_echo(chunks, false, {})
end

---Completion of :MadoHosts: `retry`, then the hosts.
---@param lead string
---@param line string the command line up to the cursor
---@return string[]
function M.complete_hosts(lead, line)
  local words = vim.split(vim.trim(line), '%s+')
  local choices = {}
  if #words == 1 or (#words == 2 and lead ~= '') then
    choices = { 'retry' }
  elseif words[2] == 'retry' and (#words == 2 or (#words == 3 and lead ~= '')) then
    for _, h in ipairs(host_status() or {}) do
      choices[#choices + 1] = h.host
    end
  end
  return vim.tbl_filter(function(w)
    return vim.startswith(w, lead)
  end, choices)
end

---:MadoRestart — a fresh Node process; every terminal is sent again.
function M.restart()
  local node = require('madohub.node')
  node.reset()
  local chan, err = node.start()
  if chan then
    vim.notify('madohub: Node process restarted', vim.log.levels.INFO)
  else
    vim.notify('madohub: ' .. tostring(err), vim.log.levels.ERROR)
  end
end

return M
