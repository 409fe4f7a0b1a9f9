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

---Notifies once Terminal mode has been left (leaving it clears the message area, so a message said
---in it is gone before anyone reads it); at once in any other mode.
---@param msg string
---@param level integer|nil
function M.notify_after_terminal_mode(msg, level)
  if vim.api.nvim_get_mode().mode:sub(1, 1) ~= 't' then
    return M.notify(msg, level)
  end
  vim.api.nvim_create_autocmd('ModeChanged', {
    pattern = 't:*',
    once = true,
    callback = function()
      vim.schedule(function()
        M.notify(msg, level)
      end)
    end,
  })
end

---A value from the Node side, with msgpack's nil (`vim.NIL`) made nil.
---@generic T
---@param v T|userdata|nil
---@return T|nil
function M.value(v)
  if v == vim.NIL then
    return nil
  end
  return v
end

---Lines of text in a new read-only scratch split at the bottom, named `name` (`mado://logs/ab12`);
---`q` closes it and goes back to the window it was opened from. Returns its buffer.
---@param name string
---@param lines string[]
---@return integer buf
function M.scratch_split(name, lines)
  local from = vim.api.nvim_get_current_win()
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.keymap.set('n', 'q', function()
    -- The last window cannot close: the buffer goes instead.
    vim.cmd(#vim.api.nvim_tabpage_list_wins(0) > 1 and 'close' or 'bwipe')
    if vim.api.nvim_win_is_valid(from) then
      vim.api.nvim_set_current_win(from)
    end
  end, { buffer = buf, nowait = true, desc = 'MadoHub: close' })
  return buf
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
