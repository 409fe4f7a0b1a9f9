---:checkhealth madohub
local M = {}

---vim.health of 0.10+, or the report_* names of older Neovims (to say they are too old).
local function reporter()
  local h = vim.health or require('health')
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

function M.check()
  local h = reporter()
  h.start('madohub: requirements')
  local madohub = require('madohub')
  local err = madohub.requirement_error()
  if err then
    h.error(err, { 'Install Neovim 0.10 or newer; MadoHub stays off until then' })
    return
  end
  h.ok(('Neovim %s'):format(tostring(vim.version())))

  local config = require('madohub.config')
  local node = require('madohub.node')
  local node_exe = require('madohub.node_exe')
  local node_err = node_exe.check_node()
  if node_err then
    h.error(node_err, { 'Install Node.js 20 or newer, or point `node` in setup() at one' })
  else
    h.ok(('Node %s (%s)'):format(node_exe.node_version, vim.fn.exepath(config.options.node)))
  end
  local entry = node.entry()
  if vim.fn.filereadable(entry) == 1 then
    h.ok('Node side built: ' .. entry)
  else
    h.error('Node side not built: ' .. entry, { 'Run `npm ci && npm run build` in ' .. require('madohub.util').root() })
  end

  -- `mado`, for background jobs from a shell.
  local bin = require('madohub.util').root() .. '/bin/mado'
  local on_path = vim.fn.exepath('mado')
  if on_path ~= '' and vim.uv.fs_realpath(on_path) == vim.uv.fs_realpath(bin) then
    h.ok('mado is on PATH: ' .. on_path)
  elseif on_path ~= '' then
    h.warn(
      ("`mado` on PATH is %s, not this MadoHub's %s"):format(on_path, bin),
      { 'Link this one instead: ln -sf ' .. bin .. ' ~/.local/bin/mado' }
    )
  else
    -- The commands that put it there: the folder made, linked, and the folder on PATH when it is not.
    local local_bin = vim.fs.normalize('~/.local/bin')
    local in_path = vim.tbl_contains(vim.split(vim.env.PATH or '', ':', { plain = true }), local_bin)
    local advice = { ('mkdir -p ~/.local/bin && ln -s %s ~/.local/bin/mado'):format(bin) }
    if not in_path then
      advice[#advice + 1] =
        'and put ~/.local/bin on PATH: export PATH="$HOME/.local/bin:$PATH" in your shell\'s startup file'
    end
    advice[#advice + 1] = '(or `npm link` in ' .. require('madohub.util').root() .. ')'
    -- vim.health.info() shows no advice: the commands are its own lines.
    h.info(('mado is not on PATH (it is %s): a shell runs background jobs with it. To put it there:'):format(bin))
    for _, line in ipairs(advice) do
      h.info('  ' .. line)
    end
  end

  h.start('madohub: Node process')
  if not madohub.configured or not node.running() then
    -- Asked for: the checks below need the Node process, so it starts now (as with the first terminal).
    madohub.boot()
    local start_err ---@type string|nil
    if not node.running() then
      start_err = select(2, node.start())
    end
    if not node.running() then
      h.error(
        'The Node process does not start: ' .. tostring(start_err or 'see :messages'),
        { 'Check the requirements above, then :MadoRestart' }
      )
      return
    end
    h.info('Started for this check (it starts with the first terminal otherwise)')
  end
  local info, rerr = node.request('health')
  if not info then
    h.error('The Node process does not answer: ' .. tostring(rerr), { ':MadoRestart' })
    return
  end
  h.ok(('Running: pid %d, Node %s, %.1f MiB'):format(info.pid, info.node, info.rssBytes / 1048576))
  if info.nodePty.ok then
    h.ok('node-pty loads')
  else
    h.warn('Background jobs cannot run: ' .. tostring(info.nodePty.error))
  end
  local watched = require('madohub.watch').count()
  h.ok(('Terminals watched: %d (the Node process tracks %d)'):format(watched, info.terminals))
  h.ok(('Agent records: %d folders watched, %d process scans so far'):format(info.foldersWatched, info.scans))
  if info.processes == 'ps' then
    h.ok('Processes: read with ps-list and lsof (no /proc here, or MADOHUB_PROCESS_SOURCE=ps)')
  else
    h.ok('Processes: read from /proc')
  end

  -- Every agent the Node side knows (its modules), and whether its program is here to run jobs with.
  h.start('madohub: agents')
  for _, a in ipairs(info.agents or {}) do
    if a.problem == vim.NIL or a.problem == nil then
      h.ok(('%s (%s): `%s` is on PATH'):format(a.name, a.id, a.program))
    else
      h.info(
        ('%s (%s): `%s` is not on PATH: its terminals are still read, its jobs cannot start'):format(
          a.name,
          a.id,
          a.program
        )
      )
    end
    -- What its module says of it (what this machine lets it read): information for its users.
    for _, note in ipairs(a.notes or {}) do
      if note.level == 'ok' then
        h.ok(note.text)
      else
        h.info(note.text)
      end
    end
  end

  -- The user's screen rules (|madohub-rules|): each file, its rules, what it refused.
  h.start('madohub: rules')
  local rules = info.rules or {}
  local files = rules.files or {}
  if #files == 0 then
    h.info(
      ('No rule files of yours (%s/<agent>.json): the built-in rules read every screen'):format(tostring(rules.dir))
    )
  end
  for _, f in ipairs(files) do
    if #f.errors == 0 then
      h.ok(('%s: %d rules'):format(f.file, f.rules))
    else
      h.warn(('%s: %d rules; refused:'):format(f.file, f.rules), f.errors)
    end
  end

  -- How an agent that needs you reaches you (|madohub-notify|): each channel, and what it lacks.
  h.start('madohub: notifications')
  local notify = info.notify or {}
  local opts = require('madohub.config').options.notify
  if not opts.enabled then
    h.info('Off (notify.enabled = false)')
  else
    h.ok('Inside Neovim: vim.notify()')
    -- Each channel outside it, as the Node side says it: telling, or why not.
    for _, c in ipairs(notify.channels or {}) do
      local say = c.ok and h.ok or h.info
      say(('%s: %s'):format(c.name, c.word))
    end
    if opts.quiet then
      h.info(('Quiet from %s to %s: nothing outside Neovim then'):format(opts.quiet.from, opts.quiet.to))
    end
  end
  for _, p in ipairs(notify.problems or {}) do
    h.warn(p)
  end

  -- The remote hosts (|madohub-hosts|): each link, up or why not.
  h.start('madohub: remote hosts')
  local hosts = info.hosts or {}
  if #hosts == 0 then
    h.info('No remote hosts (hosts.json or setup({ hosts }) names none: :help madohub-hosts)')
  end
  for _, r in ipairs(hosts) do
    if r.online then
      h.ok(('%s: linked (mado %s)'):format(r.host, r.version))
    elseif r.reason ~= '' then
      h.warn(('%s: offline: %s'):format(r.host, r.reason), { ('mado host check %s says what it lacks'):format(r.host) })
    else
      h.info(('%s: connecting'):format(r.host))
    end
  end

  -- The review's checkpoints (|madohub-review|): git, their size against their bound, the turns without.
  h.start('madohub: review')
  local review = info.review or {}
  if type(review.git) == 'string' then
    h.ok(('git %s: a checkpoint of each turn for :MadoReview'):format(review.git))
  else
    h.warn('git does not run: no checkpoints of turns for :MadoReview', { 'Install git 2.25 or newer' })
  end
  if type(review.bytes) == 'number' then
    local mib = function(n)
      return ('%.1f MiB'):format(n / 1024 / 1024)
    end
    local line = ('Checkpoints: %s of %s (review.max_mb), %d agents in %d folders, in %s'):format(
      mib(review.bytes),
      mib(review.maxBytes),
      review.agents,
      review.repositories,
      review.dir
    )
    if review.bytes > review.maxBytes then
      h.warn(line, { 'The agents checkpointed longest ago lose theirs at the next turn that ends' })
    else
      h.ok(line)
    end
  end
  for _, sk in ipairs(review.skipped or {}) do
    h.warn(('%s: turn %d %s'):format(sk.name, sk.turn, sk.why))
  end

  -- What the agents spend (|madohub-usage|): whose records tell it, the prices, what was refused.
  h.start('madohub: usage')
  local usage = info.usage or {}
  if #(usage.counted or {}) > 0 then
    h.ok(('Read from their records: %s'):format(table.concat(usage.counted, ', ')))
  end
  for _, name in ipairs(usage.none or {}) do
    h.info(('%s records no usage: its rows show none'):format(name))
  end
  if type(usage.pricesFile) == 'string' then
    if vim.uv.fs_stat(usage.pricesFile) then
      h.ok(('Prices file: %s'):format(usage.pricesFile))
    else
      h.info(("No prices file (%s): the agents' prices and setup()'s"):format(usage.pricesFile))
    end
  end
  for _, problem in ipairs(usage.problems or {}) do
    h.warn(problem, { 'Fix it in setup({ prices, budget }) or the prices file (:help madohub-usage)' })
  end

  -- Why each watched terminal reads as it does, in one line (|:MadoExplain| in its window says more).
  local watch = require('madohub.watch')
  local bufs = watch.buffers()
  table.sort(bufs)
  if #bufs > 0 then
    h.start('madohub: terminals')
    for _, b in ipairs(bufs) do
      local snap = watch.snapshot(b)
      local res = snap and require('madohub.node').request('explain', snap)
      if type(res) == 'table' and type(res.summary) == 'string' then
        h.info(('buffer %d: %s'):format(b, res.summary))
      end
    end
  end

  h.start('madohub: background jobs')
  local mado = require('madohub.util').root() .. '/dist/mado.js'
  if vim.fn.filereadable(mado) == 1 then
    h.ok('mado built: ' .. mado)
  else
    h.error('mado not built: ' .. mado, { 'Run `npm ci && npm run build` in ' .. require('madohub.util').root() })
  end
  h.info('Jobs folder: ' .. info.jobsDir)
  if info.daemon == 'running' or info.daemon == 'not running' then
    h.ok('Daemon: ' .. info.daemon .. (info.daemon == 'not running' and ' (it starts with the first job)' or ''))
  else
    h.warn('Daemon: ' .. info.daemon)
  end
  h.ok(
    ('Fleet: %d terminals, %d jobs, %d sessions elsewhere, %d terminals of other Neovims'):format(
      info.fleet.terminals,
      info.fleet.jobs,
      info.fleet.sessions,
      info.fleet.editors
    )
  )
  if vim.fn.isdirectory('/proc/self') == 0 then
    h.warn('No /proc here: the process tree cannot be read, so states come from screens only')
  end
end

return M
