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

vim.api.nvim_create_user_command('MadoHosts', function(o)
  require('madohub.commands').hosts(o.fargs)
end, {
  nargs = '*',
  complete = function(lead, line, pos)
    return require('madohub.commands').complete_hosts(lead, line:sub(1, pos))
  end,
  desc = 'MadoHub: the remote hosts and their links (retry: try the offline ones now)',
})

vim.api.nvim_create_user_command('MadoExplain', function()
  require('madohub.commands').explain()
end, { desc = 'MadoHub: why the terminal in this window has its state' })

vim.api.nvim_create_user_command('MadoRestart', function()
  require('madohub.commands').restart()
end, { desc = 'MadoHub: restart the Node process' })

vim.api.nvim_create_user_command('MadoJump', function()
  require('madohub.attention').jump()
end, { desc = 'MadoHub: go to the terminal that most recently needed attention' })

vim.api.nvim_create_user_command('MadoMute', function(o)
  require('madohub.commands').mute(o.fargs, o.bang)
end, {
  nargs = '*',
  bang = true,
  complete = function(lead)
    return require('madohub.commands').complete_mute(lead)
  end,
  desc = 'MadoHub: no notification of an agent (! notifications again)',
})

vim.api.nvim_create_user_command('MadoBackground', function(o)
  require('madohub.jobs').background(o.args)
end, { nargs = '*', desc = 'MadoHub: go on with this terminal’s agent as a background job' })

vim.api.nvim_create_user_command('MadoAttach', function(o)
  require('madohub.jobs').attach(o.args)
end, {
  nargs = 1,
  complete = function(lead)
    return require('madohub.jobs').complete(lead, true)
  end,
  desc = 'MadoHub: open a background job in a terminal split',
})

vim.api.nvim_create_user_command('MadoStop', function(o)
  require('madohub.jobs').stop(o.args)
end, {
  nargs = 1,
  complete = function(lead)
    return require('madohub.jobs').complete(lead, true)
  end,
  desc = 'MadoHub: stop a background job',
})

vim.api.nvim_create_user_command('MadoLogs', function(o)
  require('madohub.jobs').logs(o.args)
end, {
  nargs = 1,
  complete = function(lead)
    return require('madohub.jobs').complete(lead)
  end,
  desc = 'MadoHub: show a background job’s recent output',
})

vim.api.nvim_create_user_command('MadoReview', function(o)
  require('madohub.review').command(o.fargs)
end, {
  nargs = '*',
  complete = function(lead)
    return require('madohub.fleet').names(lead)
  end,
  desc = 'MadoHub: what an agent changed in its last turn (or turn N): files, diff, comments back',
})

vim.api.nvim_create_user_command('MadoAgents', function()
  require('madohub.picker').open()
end, { desc = 'MadoHub: every agent in a floating picker' })

vim.api.nvim_create_user_command('MadoRoute', function(o)
  require('madohub.routes').command(o.fargs)
end, {
  nargs = '*',
  complete = function(lead, line, pos)
    return require('madohub.routes').complete(lead, line:sub(1, pos))
  end,
  desc = 'MadoHub: when an agent finishes a turn, hand its result to another',
})
