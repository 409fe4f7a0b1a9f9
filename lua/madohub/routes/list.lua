---`:MadoRoute list`: the routes in a float, one line each; `dd` removes one.
local routes = require('madohub.routes')
local util = require('madohub.util')

local M = {}

---The float open now, if any: `:MadoRoute list` again shows the routes in it, not in a second one.
---@type integer|nil
local open_win = nil

---`:MadoRoute list`: the routes in a float; `dd` removes the one under the cursor, `q` closes.
function M.open()
  if open_win and vim.api.nvim_win_is_valid(open_win) then
    vim.api.nvim_win_close(open_win, true)
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  -- The routes as they are now (a copy): a removed one leaves the list at once.
  local shown = routes.get()
  local function draw()
    local lines = {}
    for _, r in ipairs(shown) do
      lines[#lines + 1] = routes.describe(r)
    end
    if #lines == 0 then
      lines = { 'no routes (:MadoRoute {target} in a terminal adds one)' }
    end
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
  end
  draw()
  local width = math.min(vim.o.columns - 4, 100)
  local height = math.min(vim.o.lines - 4, math.max(3, #shown))
  local win = vim.api.nvim_open_win(buf, true, {
    relative = 'editor',
    row = math.floor((vim.o.lines - height) / 2),
    col = math.floor((vim.o.columns - width) / 2),
    width = width,
    height = height,
    style = 'minimal',
    border = require('madohub.picker.layout').border(),
    title = ' Routes · dd removes · q closes ',
    title_pos = 'center',
  })
  open_win = win
  vim.keymap.set('n', 'dd', function()
    local row = vim.api.nvim_win_get_cursor(win)[1]
    local r = shown[row]
    if r and routes.unroute(r.id) then
      util.notify(('removed route %s'):format(r.id))
      table.remove(shown, row)
      draw()
    end
  end, { buffer = buf, nowait = true })
  for _, k in ipairs({ 'q', '<Esc>' }) do
    vim.keymap.set('n', k, function()
      pcall(vim.api.nvim_win_close, win, true)
    end, { buffer = buf, nowait = true })
  end
end

return M
