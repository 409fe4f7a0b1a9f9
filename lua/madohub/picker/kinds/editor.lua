---What the picker does to a terminal of another Neovim: asks that Neovim, over its server address.
local call = require('madohub.picker.call').call
local picker = require('madohub.picker')

---@type madohub.PickerKind
local M = {}

---Asks the other Neovim, through the Node side (answered within 1 s: a peer stopped with Ctrl-Z
---never blocks this one), to show its terminal.
function M.open(_, e)
  local util = require('madohub.util')
  local pid, buf = util.value(e.pid), util.value(e.peerBuf)
  if e.server == '' or not buf then
    return picker.say(('nvim %s has no server address: go to it'):format(pid or '?'), vim.log.levels.WARN)
  end
  call(('nvim %s'):format(pid), 'editor_show', { server = e.server, buf = buf }, function(r)
    if r.shown == true then
      picker.say(('nvim %s shows %s (buffer %s)'):format(pid, e.name, buf))
    else
      picker.say(('nvim %s did not show buffer %s: it is gone'):format(pid, buf), vim.log.levels.ERROR)
    end
  end)
end

return M
