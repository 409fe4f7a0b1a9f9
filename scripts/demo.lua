-- Opened by scripts/demo.sh: two fixture agents in splits, cycling through their states.
local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h')
local agent = root .. '/test/fixtures/agent.cjs'
require('madohub').setup({})

local function open(screens, split)
  if split then
    vim.cmd(split)
  end
  require('madohub.util').termopen(vim.list_extend({ 'node', agent, '--every', '2500', '--loop' }, screens))
end

open({ 'claude-idle', 'claude-working', 'claude-approval', 'claude-working', 'claude-stopped' })
open({ 'codex-idle', 'codex-working', 'codex-streaming', 'codex-approval', 'codex-stopped' }, 'vnew')
vim.cmd('wincmd p')
vim.notify('MadoHub demo: two fixture agents change state every 2.5 s. :MadoStatus lists them; :qa! quits.')
