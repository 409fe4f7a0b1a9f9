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
  for _, buf in ipairs(bufs) do
    local st = madohub.state(buf)
    local name = vim.api.nvim_buf_get_name(buf)
    lines[#lines + 1] = ('%4d  %-40s  %s%s'):format(
      buf,
      st and label.text(st):sub(1, 40) or '',
      vim.fn.fnamemodify(name, ':t'),
      st and st.detail ~= '' and ('  — ' .. st.detail) or ''
    )
    if not st then
      lines[#lines] = ('%4d  %-40s  %s'):format(buf, '(no state yet)', vim.fn.fnamemodify(name, ':t'))
    end
  end
  if #bufs == 0 then
    lines[#lines + 1] = 'No terminal watched.'
  end
  -- The background jobs, from the fleet (|madohub.agents()|).
  local jobs = madohub.agents({ kind = 'job' })
  if #jobs > 0 then
    lines[#lines + 1] = 'Jobs:'
    for _, e in ipairs(jobs) do
      lines[#lines + 1] = ('%s  %-40s  %s%s'):format(
        e.short,
        label.text(e):sub(1, 40),
        e.name,
        e.detail ~= '' and ('  — ' .. e.detail) or ''
      )
    end
  end
  vim.api.nvim_echo({ { table.concat(lines, '\n') } }, false, {})
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
