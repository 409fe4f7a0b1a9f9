---The picker's input line: a new job (`[@agent] [--worktree] …`), a reply, a filter or a name, by
---the key that focused it; what its text does is submit.lua's.
local fleet = require('madohub.fleet')

local M = {}
local H = {}

local ns = vim.api.nvim_create_namespace('madohub.picker.input')

local PLACEHOLDER = 'n: describe a task for a new agent ([@agent] [--worktree] …) · ? keys'

---@param p madohub.Picker
function H.title(p)
  local mode, target = p.input.mode, p.input.target and fleet.find(p.input.target)
  if (mode == 'reply' or mode == 'rename') and not p.input.target then
    return ' No agent on this row: what you type goes nowhere (Esc) '
  elseif mode == 'reply' then
    return (' Reply to %s '):format(target and target.name or '?')
  elseif mode == 'rename' then
    return (' Rename %s '):format(target and target.name or '?')
  elseif mode == 'filter' then
    return ' Filter (a:agent s:state k:kind h:host words) '
  end
  return p.input.attach and ' New agent (attach) ' or ' New agent '
end

---@param p madohub.Picker
function M.placeholder(p)
  vim.api.nvim_buf_clear_namespace(p.input_buf, ns, 0, -1)
  local line = vim.api.nvim_buf_get_lines(p.input_buf, 0, 1, false)[1] or ''
  if line == '' and p.input.mode == 'new' then
    vim.api.nvim_buf_set_extmark(
      p.input_buf,
      ns,
      0,
      0,
      { virt_text = { { PLACEHOLDER, 'Comment' } }, virt_text_pos = 'overlay' }
    )
  end
end

---Focuses the input line in `mode` (for `target`), with `text` in it.
---@param p madohub.Picker
---@param mode "new"|"reply"|"filter"|"rename"
---@param target string|nil
---@param text string|nil
---@param attach boolean|nil
function M.open(p, mode, target, text, attach)
  p.input = { mode = mode, target = target, attach = attach == true }
  vim.api.nvim_buf_set_lines(p.input_buf, 0, -1, false, { text or '' })
  vim.api.nvim_win_set_config(p.input_win, { title = H.title(p), title_pos = 'left' })
  M.placeholder(p)
  vim.api.nvim_set_current_win(p.input_win)
  vim.cmd('startinsert!')
end

---Back from the input line to the list (a filter stays in force; `clear` empties the line).
---@param p madohub.Picker
---@param clear boolean|nil
function M.leave(p, clear)
  vim.cmd('stopinsert')
  if clear then
    vim.api.nvim_buf_set_lines(p.input_buf, 0, -1, false, { '' })
  end
  p.input = { mode = 'new', attach = false }
  if vim.api.nvim_win_is_valid(p.input_win) then
    vim.api.nvim_win_set_config(p.input_win, { title = H.title(p), title_pos = 'left' })
  end
  M.placeholder(p)
  if vim.api.nvim_win_is_valid(p.list_win) then
    vim.api.nvim_set_current_win(p.list_win)
  end
end

---@param p madohub.Picker
---@param attach boolean
function H.submit(p, attach)
  -- A reply keeps its lines (it is pasted as one); the other modes take one line.
  local lines = vim.api.nvim_buf_get_lines(p.input_buf, 0, -1, false)
  local text = table.concat(lines, p.input.mode == 'reply' and '\n' or ' ')
  require('madohub.picker.submit').submit(p, p.input.mode, p.input.target, text, attach or p.input.attach)
end

---@param p madohub.Picker
function M.map(p)
  local o = { buffer = p.input_buf, nowait = true, silent = true }
  vim.keymap.set({ 'i', 'n' }, '<CR>', function()
    H.submit(p, false)
  end, o)
  for _, k in ipairs({ '<C-CR>', '<M-CR>', '<S-CR>' }) do
    vim.keymap.set({ 'i', 'n' }, k, function()
      H.submit(p, true)
    end, o)
  end
  -- Esc keeps only a new job's words (a reply, a name or a filter's text is not left to be sent as one).
  vim.keymap.set({ 'i', 'n' }, '<Esc>', function()
    M.leave(p, p.input.mode ~= 'new')
  end, o)
  vim.keymap.set('n', 'q', function()
    require('madohub.picker').close()
  end, o)
  vim.api.nvim_create_autocmd({ 'TextChangedI', 'TextChanged' }, {
    buffer = p.input_buf,
    callback = function()
      M.placeholder(p)
      if p.input.mode == 'filter' then
        p.ui.filter = vim.api.nvim_buf_get_lines(p.input_buf, 0, 1, false)[1] or ''
        require('madohub.picker').render(p)
      end
    end,
  })
end

return M
