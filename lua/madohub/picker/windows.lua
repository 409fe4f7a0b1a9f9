---The picker's windows: the list and the input line made, placed, followed (a window the user goes
---to, a window closed another way, a resized editor) and closed, each of them.
local layout = require('madohub.picker.layout')

local M = {}

local GROUP = 'madohub_picker'

---Makes the list (focused) and the input line, and their buffers.
---@param p madohub.Picker
function M.create(p)
  local g = layout.geometry(false)
  p.list_buf = layout.scratch('madohub_agents')
  p.input_buf = layout.scratch('madohub_input')
  p.list_win = vim.api.nvim_open_win(p.list_buf, true, {
    relative = 'editor',
    row = g.list.row,
    col = g.list.col,
    width = g.list.width,
    height = g.list.height,
    style = 'minimal',
    border = layout.border(),
    title = ' Agents ',
    title_pos = 'center',
    footer = ' ? keys · / filter · n new · q close ',
    footer_pos = 'right',
    zindex = 50,
  })
  p.input_win = vim.api.nvim_open_win(p.input_buf, false, {
    relative = 'editor',
    row = g.input.row,
    col = g.input.col,
    width = g.input.width,
    height = 1,
    style = 'minimal',
    border = layout.border(),
    title = ' New agent ',
    title_pos = 'left',
    zindex = 50,
  })
  vim.wo[p.list_win].cursorline = true
  vim.wo[p.list_win].winhighlight = 'CursorLine:' .. require('madohub.ui.highlight').selected
  vim.wo[p.list_win].wrap = false
  vim.bo[p.list_buf].modifiable = false
end

---Places the list (narrower beside the peek pane), the input line and the peek pane.
---@param p madohub.Picker
---@param peek boolean
function M.place(p, peek)
  local g = layout.geometry(peek)
  vim.api.nvim_win_set_config(
    p.list_win,
    { relative = 'editor', row = g.list.row, col = g.list.col, width = g.list.width, height = g.list.height }
  )
  vim.api.nvim_win_set_config(
    p.input_win,
    { relative = 'editor', row = g.input.row, col = g.input.col, width = g.input.width, height = 1 }
  )
  if p.peek_win and vim.api.nvim_win_is_valid(p.peek_win) then
    vim.api.nvim_win_set_config(
      p.peek_win,
      { relative = 'editor', row = g.peek.row, col = g.peek.col, width = g.peek.width, height = g.peek.height }
    )
  end
end

---@class madohub.PickerFollow
---@field left fun(win: integer) The user went to a window that is none of the picker's.
---@field closed fun() The list or the input line closed another way (`:q`, `<C-w>c`).
---@field resized fun()

---Follows the picker's windows until unfollow().
---@param p madohub.Picker
---@param on madohub.PickerFollow
function M.follow(p, on)
  local group = vim.api.nvim_create_augroup(GROUP, { clear = true })
  vim.api.nvim_create_autocmd('WinEnter', {
    group = group,
    callback = function()
      local win = vim.api.nvim_get_current_win()
      if win ~= p.list_win and win ~= p.input_win and win ~= p.peek_win and win ~= p.help_win then
        on.left(win)
      end
    end,
  })
  vim.api.nvim_create_autocmd('WinClosed', {
    group = group,
    callback = function(ev)
      local win = tonumber(ev.match)
      if win == p.list_win or win == p.input_win then
        vim.schedule(on.closed)
      end
    end,
  })
  vim.api.nvim_create_autocmd('VimResized', { group = group, callback = on.resized })
end

function M.unfollow()
  pcall(vim.api.nvim_del_augroup_by_name, GROUP)
end

---Closes every window of the picker.
---@param p madohub.Picker
function M.close(p)
  -- Not ipairs over the four: the help and peek panes are nil when closed, and ipairs stops there.
  local wins = { p.help_win, p.peek_win, p.input_win, p.list_win }
  for i = 1, 4 do
    local win = wins[i]
    if win and vim.api.nvim_win_is_valid(win) then
      pcall(vim.api.nvim_win_close, win, true)
    end
  end
end

return M
