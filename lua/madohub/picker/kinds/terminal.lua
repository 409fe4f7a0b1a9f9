---What the picker does to a terminal of this Neovim: shown in a window, answered through the Node
---side (which checks the screen), its program ended through its channel.
local call = require('madohub.picker.call')
local picker = require('madohub.picker')

---@type madohub.PickerKind
local M = { replies = true }

function M.open(_, e)
  picker.close()
  require('madohub').show_terminal(call.term_buf(e) or -1)
end

function M.choose(e, choice, said)
  local buf = call.term_buf(e)
  -- The screen as it is now: the Node side checks the menu is still on it.
  local snap = buf and vim.api.nvim_buf_is_valid(buf) and require('madohub.watch').snapshot(buf)
  call.call('answer', 'terminal_choose', { buf = buf, choice = choice, lines = snap and snap.lines or {} }, said)
end

---Its program ends; its window and buffer stay.
function M.stop(_, e)
  local buf = call.term_buf(e)
  local chan = buf and vim.api.nvim_buf_is_valid(buf) and vim.bo[buf].channel or 0
  if chan > 0 and vim.fn.jobstop(chan) == 1 then
    picker.say(('stopped %s (its terminal’s program ends; the buffer stays)'):format(e.name))
  else
    picker.say(('%s has no running program'):format(e.name), vim.log.levels.WARN)
  end
end

return M
