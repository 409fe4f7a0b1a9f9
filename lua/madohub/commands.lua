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
