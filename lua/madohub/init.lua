---MadoHub: which AI coding agent runs in each terminal, and what it is doing.
local M = {}

---@type boolean
M.configured = false

---@return string|nil error
function M.requirement_error()
  if vim.fn.has('nvim-0.10') == 0 then
    local v = vim.version()
    return ('Neovim >= 0.10 is needed (this is %d.%d.%d)'):format(v.major, v.minor, v.patch)
  end
  return nil
end

local AUGROUP = 'madohub'

local function create_autocmds()
  local watch = require('madohub.watch')
  local ui = require('madohub.ui')
  local group = vim.api.nvim_create_augroup(AUGROUP, { clear = true })
  vim.api.nvim_create_autocmd('TermOpen', {
    group = group,
    callback = function(ev)
      watch.attach(ev.buf)
    end,
  })
  vim.api.nvim_create_autocmd('TermClose', {
    group = group,
    callback = function(ev)
      local status = vim.v.event and vim.v.event.status or -1
      watch.exited(ev.buf, status)
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    group = group,
    callback = function(ev)
      if watch.is_watched(ev.buf) then
        watch.forget(ev.buf)
        vim.schedule(ui.sync_all)
      end
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufWinEnter', 'WinNew', 'TabEnter', 'WinClosed', 'WinResized' }, {
    group = group,
    callback = function(ev)
      if ev.event == 'BufWinEnter' then
        ui.sync_window(vim.api.nvim_get_current_win())
        if watch.is_watched(ev.buf) then
          watch.touch(ev.buf)
        end
      elseif ev.event == 'WinResized' then
        for _, win in ipairs(vim.v.event.windows or {}) do
          local ok, buf = pcall(vim.api.nvim_win_get_buf, win)
          if ok then
            watch.touch(buf)
          end
        end
      end
      ui.update_timer()
    end,
  })
  vim.api.nvim_create_autocmd('ColorScheme', {
    group = group,
    callback = function()
      require('madohub.ui.highlight').apply()
    end,
  })
  vim.api.nvim_create_autocmd('VimLeavePre', {
    group = group,
    callback = function()
      require('madohub.node').stop()
    end,
  })
end

---Sets MadoHub up (again). Terminals already open are watched too.
---@param opts madohub.Config|table|nil
function M.setup(opts)
  local err = M.requirement_error()
  if err then
    vim.notify('madohub: ' .. err .. '; MadoHub stays off', vim.log.levels.ERROR)
    return
  end
  local config = require('madohub.config')
  local ok, merr = pcall(config.merge, opts)
  if not ok then
    vim.notify(tostring(merr), vim.log.levels.ERROR)
    return
  end
  local node = require('madohub.node')
  node.reset()
  -- Node is checked without blocking startup; a missing or old one turns MadoHub off with one message.
  local missing = false
  node.check_node_async(function(msg)
    missing = true
    vim.notify('madohub: ' .. msg .. '. MadoHub stays off', vim.log.levels.ERROR)
    M.disable()
  end)
  if missing then
    return
  end
  local watch = require('madohub.watch')
  if M.configured then
    -- A new configuration: start over with fresh watches.
    watch.stop_all()
  end
  M.configured = true
  node.on_start = watch.resync
  require('madohub.ui.highlight').apply()
  create_autocmds()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == 'terminal' then
      watch.attach(buf)
    end
  end
end

---Turns MadoHub off: no more watching, no Node process, labels removed.
function M.disable()
  pcall(vim.api.nvim_del_augroup_by_name, AUGROUP)
  if M.configured then
    require('madohub.watch').stop_all()
    require('madohub.node').stop()
    require('madohub.ui').stop()
    require('madohub.ui').sync_all()
  end
  M.configured = false
end

---Called by plugin/madohub.lua on the first terminal when setup() was not called: defaults.
function M.boot()
  if not M.configured and vim.g.madohub_autosetup ~= false then
    M.setup()
  end
end

---The state of a terminal buffer (0 or nil: the current one), answered from the Lua cache.
---@param buf integer|nil
---@return madohub.State|nil
function M.state(buf)
  return require('madohub.state').get(buf)
end

---The current window's label as statusline text, for users who turn the winbar off.
---@return string
function M.statusline()
  local win = vim.g.statusline_winid or vim.api.nvim_get_current_win()
  local ok, buf = pcall(vim.api.nvim_win_get_buf, win)
  return ok and require('madohub.ui.label').render(buf) or ''
end

return M
