---What a route's firing does in this Neovim, as the Node side asks: lines appended to a normal
---buffer (a target that is no agent), or the payload opened to edit before it is sent (`review`).
local util = require('madohub.util')

local M = {}

---Appends lines to a normal buffer (a route's target); '' or why not.
---@param buf integer
---@param lines string[]
---@return string
function M.append(buf, lines)
  if type(buf) ~= 'number' or not vim.api.nvim_buf_is_valid(buf) then
    return 'the buffer is gone'
  end
  if not vim.bo[buf].modifiable then
    return ('buffer %d cannot be changed'):format(buf)
  end
  local count = vim.api.nvim_buf_line_count(buf)
  local empty = count == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ''
  vim.api.nvim_buf_set_lines(buf, empty and 0 or count, -1, false, lines)
  return ''
end

---Opens a firing's payload in a buffer to edit: `:w` or <CR> sends what it holds, `q` drops it.
---@param review integer
---@param route madohub.Route
---@param text string
function M.review(review, route, text)
  local node = require('madohub.node')
  local decided = false
  local function decide(buf, send)
    if decided then
      return
    end
    decided = true
    local body = send and table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') or vim.NIL
    node.notify('route_review', { review = review, text = body })
    vim.schedule(function()
      if vim.api.nvim_buf_is_valid(buf) then
        vim.api.nvim_buf_delete(buf, { force = true })
      end
    end)
  end
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'acwrite'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, ('mado://route/%s/%d'):format(route.id, review))
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modified = false
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    buffer = buf,
    callback = function()
      decide(buf, true)
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    callback = function()
      decide(buf, false)
    end,
  })
  vim.keymap.set('n', '<CR>', function()
    decide(buf, true)
  end, { buffer = buf, desc = 'MadoRoute: send' })
  vim.keymap.set('n', 'q', function()
    decide(buf, false)
  end, { buffer = buf, desc = 'MadoRoute: drop this firing' })
  util.notify(
    ('route %s: edit what %s sends, then :w or <CR> sends it, q drops it'):format(
      route.id,
      require('madohub.routes').target_name(route)
    )
  )
end

return M
