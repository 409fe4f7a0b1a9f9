---What the picker does to an agent's session outside Neovim: attached by the command its agent's
---module gives, else told where it runs.
local picker = require('madohub.picker')

---@type madohub.PickerKind
local M = {}

function M.open(_, e)
  if #e.attach > 0 and vim.fn.executable(e.attach[1]) == 1 then
    picker.close()
    vim.cmd('botright new')
    require('madohub.util').termopen(e.attach)
  else
    picker.say(
      ('%s runs outside this Neovim: %s, in %s%s'):format(
        e.name,
        e.where,
        vim.fn.fnamemodify(e.cwd, ':~'),
        e.tty ~= '' and (', on ' .. e.tty) or ''
      )
    )
  end
end

return M
