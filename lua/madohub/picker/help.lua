---The picker's `?`: the keys in force (the user's mappings), by action.
local config = require('madohub.config')
local layout = require('madohub.picker.layout')

local M = {}

---The keys in force, by action, as `?` shows them (from the user's mappings).
---@return string[]
function M.lines()
  local keys = require('madohub.picker.keys')
  local by_action = {}
  for key, action in pairs(config.options.picker.keys) do
    if action then
      by_action[action] = by_action[action] or {}
      table.insert(by_action[action], key)
    end
  end
  local out = {}
  for _, action in ipairs(keys.order) do
    local ks = by_action[action]
    if ks then
      table.sort(ks)
      out[#out + 1] = ('%-22s %s'):format(table.concat(ks, ' '), keys.actions[action])
    end
  end
  out[#out + 1] = ''
  out[#out + 1] = 'Input line: <CR> sends, <C-CR>/<M-CR> starts and attaches, <Esc> back to the list'
  return out
end

---@param p madohub.Picker
function M.toggle(p)
  if p.help_win then
    pcall(vim.api.nvim_win_close, p.help_win, true)
    p.help_win = nil
    return
  end
  local lines = M.lines()
  local buf = layout.scratch('madohub_help')
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  local width = 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, vim.o.columns - 4)
  p.help_win = vim.api.nvim_open_win(buf, false, {
    relative = 'editor',
    row = math.max(0, math.floor((vim.o.lines - #lines) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    width = width,
    height = math.min(#lines, vim.o.lines - 4),
    style = 'minimal',
    border = layout.border(),
    title = ' MadoAgents keys (:help madohub-picker) ',
    title_pos = 'center',
    zindex = 60,
  })
end

return M
