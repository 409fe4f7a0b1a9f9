-- MadoHub: commands and a boot autocmd only; everything else loads on the first terminal.
if vim.g.loaded_madohub then
  return
end
vim.g.loaded_madohub = true

if vim.fn.has('nvim-0.10') == 0 then
  -- setup() and :checkhealth madohub say why; nothing here may error on an old Neovim.
  return
end

vim.api.nvim_create_autocmd('TermOpen', {
  group = vim.api.nvim_create_augroup('madohub_boot', { clear = true }),
  once = true,
  callback = function(ev)
    local madohub = require('madohub')
    madohub.boot()
    if madohub.configured then
      require('madohub.watch').attach(ev.buf)
    end
  end,
})

vim.api.nvim_create_user_command('MadoStatus', function()
  require('madohub.commands').status()
end, { desc = 'MadoHub: list watched terminals and their states' })

vim.api.nvim_create_user_command('MadoRestart', function()
  require('madohub.commands').restart()
end, { desc = 'MadoHub: restart the Node process' })

vim.api.nvim_create_user_command('MadoJump', function()
  require('madohub.attention').jump()
end, { desc = 'MadoHub: go to the terminal that most recently needed attention' })
