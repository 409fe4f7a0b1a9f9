-- Opened by scripts/demo.sh: two fixture agents in splits, cycling through their states. The splits
-- and the hint wait for the UI: a server started headless gets its UI later, and only then knows its
-- size (side by side from 160 columns, one above the other below that).
local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h')
local agent = root .. '/test/fixtures/agent.cjs'
require('madohub').setup({})

-- Short enough for one line of an 80-column UI (a longer one would ask for Enter).
local HINT = 'MadoHub demo: :MadoStatus lists the agents, :qa! quits.'

local function open(screens, split)
  if split then
    vim.cmd(split)
  end
  require('madohub.util').termopen(vim.list_extend({ 'node', agent, '--every', '2500', '--loop' }, screens))
end

local function start()
  open({ 'claude-idle', 'claude-working', 'claude-approval', 'claude-working', 'claude-stopped' })
  open(
    { 'codex-idle', 'codex-working', 'codex-streaming', 'codex-approval', 'codex-stopped' },
    vim.o.columns >= 160 and 'vnew' or 'new'
  )
  vim.cmd('wincmd p')
  vim.api.nvim_echo({ { HINT } }, true, {})
end

if #vim.api.nvim_list_uis() > 0 then
  start()
else
  vim.api.nvim_create_autocmd('UIEnter', { once = true, callback = vim.schedule_wrap(start) })
end
