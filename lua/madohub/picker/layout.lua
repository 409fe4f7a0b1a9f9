---Where the picker's windows go (the list, the peek pane beside it, the input line below), their
---border, and their scratch buffers.
local config = require('madohub.config')

local M = {}
---The border: the option, else 'winborder' (Neovim 0.11+) when set, else rounded.
---@return string|string[]
function M.border()
  if config.options.picker.border then
    return config.options.picker.border
  end
  local ok, wb = pcall(function()
    return vim.o.winborder
  end)
  return (ok and type(wb) == 'string' and wb ~= '' and wb ~= 'none') and wb or 'rounded'
end

---@param n number
---@param total integer
---@param least integer
local function size(n, total, least)
  local v = n <= 1 and math.floor(total * n) or math.floor(n)
  return math.max(least, math.min(v, total - 2))
end

---The picker's geometry: the list (and the peek pane beside it when open), the input line below.
---@param peek boolean
function M.geometry(peek)
  local cols, lines = vim.o.columns, vim.o.lines - vim.o.cmdheight
  local w = size(config.options.picker.width, cols - 2, 40)
  local h = size(config.options.picker.height, lines - 2, 8)
  local top = math.max(0, math.floor((lines - h) / 2) - 1)
  local left = math.max(0, math.floor((cols - w) / 2) - 1)
  local list_h = math.max(1, h - 3)
  local list_w = peek and math.max(20, math.floor(w * 0.5)) or w
  return {
    list = { row = top, col = left, width = list_w, height = list_h },
    peek = { row = top, col = left + list_w + 2, width = math.max(10, w - list_w - 2), height = list_h },
    input = { row = top + list_h + 2, col = left, width = w, height = 1 },
  }
end

---A scratch buffer of the picker.
---@param name string
---@return integer
function M.scratch(name)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = name
  return buf
end

return M
