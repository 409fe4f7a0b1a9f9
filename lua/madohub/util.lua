local M = {}

---Milliseconds since the epoch (the clock the Node side stamps `since` with).
---@return number
function M.now_ms()
  local sec, usec = vim.uv.gettimeofday()
  return sec * 1000 + math.floor(usec / 1000)
end

---@param msg string
---@param level integer|nil
function M.notify(msg, level)
  vim.notify('madohub: ' .. msg, level or vim.log.levels.INFO, { title = 'madohub' })
end

---The plugin's root folder (the one holding lua/, plugin/, rplugin/).
---@return string
function M.root()
  local source = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(source, ':p:h:h:h')
end

---Runs `cmd` in a terminal in the current (empty) buffer: jobstart(term) on 0.11+, termopen before.
---@param cmd string[]
---@return integer job id
function M.termopen(cmd)
  if vim.fn.has('nvim-0.11') == 1 then
    return vim.fn.jobstart(cmd, { term = true })
  end
  return vim.fn.termopen(cmd)
end

return M
