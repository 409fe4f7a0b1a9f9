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

-- Modules load on first use, not in setup(): setup() runs at startup and must stay cheap.
local watch = setmetatable({}, {
  __index = function(_, key)
    return require('madohub.watch')[key]
  end,
})
local ui = setmetatable({}, {
  __index = function(_, key)
    return require('madohub.ui')[key]
  end,
})

local function create_autocmds()
  local group = vim.api.nvim_create_augroup(AUGROUP, { clear = true })
  vim.api.nvim_create_autocmd('TermOpen', {
    group = group,
    callback = function(ev)
      watch.attach(ev.buf)
    end,
  })
  -- A notification a terminal's program asks for (OSC 9, 777, 99): the Node side reads what it says.
  vim.api.nvim_create_autocmd('TermRequest', {
    group = group,
    callback = function(ev)
      watch.term_request(ev.buf, ev.data)
    end,
  })
  vim.api.nvim_create_autocmd('TermClose', {
    group = group,
    callback = function(ev)
      local status = vim.v.event and vim.v.event.status or -1
      watch.exited(ev.buf, status)
      require('madohub.jobs').view_closed(ev.buf, status)
    end,
  })
  -- A file you save where an agent works: its turn's review says you worked there too (|madohub-review|).
  vim.api.nvim_create_autocmd('BufWritePost', {
    group = group,
    callback = function(ev)
      local node = require('madohub.node')
      if vim.bo[ev.buf].buftype == '' and node.running() then
        node.notify('saved', { path = vim.fn.fnamemodify(ev.match, ':p') })
      end
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    group = group,
    callback = function(ev)
      -- A buffer that routes wrote into is gone: so are those routes.
      if package.loaded['madohub.routes'] then
        require('madohub.node').notify('route_gone', { target = require('madohub.ids').buf(ev.buf) })
      end
      require('madohub.reply').keep(ev.buf, nil)
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
      watch.sight_changed()
      require('madohub.attention').sight_changed()
    end,
  })
  -- What is in sight counts only while Neovim has the focus (a terminal that tells it: |FocusLost|).
  vim.api.nvim_create_autocmd({ 'FocusGained', 'FocusLost' }, {
    group = group,
    callback = function(ev)
      require('madohub.attention').sight_changed(ev.event == 'FocusGained' and 'gained' or 'lost')
    end,
  })
  vim.api.nvim_create_autocmd({ 'TermEnter', 'TermLeave' }, {
    group = group,
    callback = function(ev)
      -- A reply held while the user types in Terminal mode goes when it is left.
      require('madohub.reply').mode_changed(ev.buf, ev.event == 'TermEnter')
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
  local function turn_off(msg)
    vim.notify('madohub: ' .. msg .. '. MadoHub stays off', vim.log.levels.ERROR)
    M.disable()
  end
  -- A missing `node` is known at once. Its version needs a run of it (a few ms): that waits until
  -- startup is over, so that setup() in a config costs startup nothing of the sort.
  local missing = require('madohub.node_exe').find_node_error()
  if missing then
    turn_off(missing)
    return
  end
  if vim.v.vim_did_enter == 1 then
    require('madohub.node_exe').check_node_async(turn_off)
  else
    vim.api.nvim_create_autocmd('VimEnter', {
      group = vim.api.nvim_create_augroup('madohub_node_check', { clear = true }),
      once = true,
      callback = function()
        vim.schedule(function()
          require('madohub.node_exe').check_node_async(turn_off)
        end)
      end,
    })
  end
  if M.configured and package.loaded['madohub.watch'] then
    -- A new configuration: start over with fresh watches.
    watch.stop_all()
  end
  M.configured = true
  node.on_start = function()
    local marks = require('madohub.fleet').terminal_marks()
    require('madohub.fleet').reset()
    -- Who this Neovim is, for the other Neovims' fleets.
    node.notify('hello', { server = vim.v.servername })
    -- How you want to be told (|madohub-notify|), and what you see now.
    node.notify('notify_settings', { notify = config.options.notify, words = config.options.words })
    -- How large the review's records may grow (|madohub-review|).
    node.notify('review_settings', { max_mb = config.options.review.max_mb })
    -- Your prices and budget (|madohub-usage|): what the Node side refused of them is said.
    node.call('usage_settings', { prices = config.options.prices, budget = config.options.budget }, function(result)
      for _, problem in ipairs(type(result) == 'table' and result.problems or {}) do
        require('madohub.util').notify(problem, vim.log.levels.WARN)
      end
    end)
    -- The remote hosts of setup() (hosts.json's beside them): their jobs are followed (|madohub-hosts|).
    node.call('hosts', { hosts = config.options.hosts }, function(result)
      for _, problem in ipairs(type(result) == 'table' and result.problems or {}) do
        require('madohub.util').notify(problem, vim.log.levels.WARN)
      end
    end)
    require('madohub.attention').sight_changed()
    -- The names and pins you gave this Neovim's terminals (a Node process before this one knew them).
    if #marks > 0 then
      node.notify('restore', { marks = marks })
    end
    watch.resync()
    -- The terminals' mutes (a job's the Node side keeps in its notify file).
    for id, states in pairs(require('madohub.attention').mutes) do
      if require('madohub.ids').term_buf(id) then
        node.call('mute', { id = id, states = states == 'all' and {} or states, on = true }, function() end)
      end
    end
    -- What lives as long as this Neovim goes to the new Node process (after the terminals it names):
    -- this Neovim's routes, and the replies that waited for a terminal.
    require('madohub.routes').restore()
    require('madohub.reply').restore()
  end
  require('madohub.ui.highlight').apply()
  create_autocmds()
  if config.options.picker.open_on_start and vim.v.vim_did_enter == 0 then
    vim.api.nvim_create_autocmd('VimEnter', {
      group = vim.api.nvim_create_augroup('madohub_open_on_start', { clear = true }),
      once = true,
      callback = function()
        if vim.fn.argc() == 0 then
          vim.schedule(require('madohub.picker').open)
        end
      end,
    })
  end
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == 'terminal' then
      watch.attach(buf)
    end
  end
end

---Turns MadoHub off: no more watching, no Node process, labels removed.
function M.disable()
  pcall(vim.api.nvim_del_augroup_by_name, AUGROUP)
  if M.configured and package.loaded['madohub.watch'] then
    watch.stop_all()
    ui.stop()
    ui.sync_all()
  end
  require('madohub.node').stop()
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

---Every agent MadoHub knows (terminals of this Neovim and background jobs), answered from the Lua
---cache: copies, ordered by id. `filter` keeps the entries whose fields equal its fields.
---@param filter madohub.FleetFilter|nil
---@return madohub.FleetEntry[]
function M.agents(filter)
  return require('madohub.fleet').get(filter)
end

---What needs you now, counted over agents(): agents that wait, finished turns and failures you have
---not seen (|madohub-notify|), with them in words (`text`: `2 waiting · 1 done`, '' for none).
---@return madohub.Counts|{ text: string }
function M.summary()
  local attention = require('madohub.attention')
  local c = attention.counts()
  return vim.tbl_extend('force', c, { text = attention.text(c) })
end

---What the agents spent today, all of them (|madohub-usage|), from the Lua cache: `today` (tokens by
---kind, `costUsd`), whether it crossed the day's budget, and in words (`text`: `$3.20 today`, '' for none).
---@return { day: string|nil, today: madohub.Spend|nil, overDay: boolean, text: string }
function M.spending()
  local s = require('madohub.fleet').spending()
  return {
    day = s and s.day,
    today = s and s.today,
    overDay = s ~= nil and s.overDay == true,
    text = require('madohub.usage').today(),
  }
end

---Shows terminal `buf` of this Neovim: goes to a window that shows it (this tab first), else opens
---it in a split. Another Neovim's picker asks this through this Neovim's server address.
---@param buf integer
---@return boolean shown
function M.show_terminal(buf)
  if type(buf) ~= 'number' or not vim.api.nvim_buf_is_valid(buf) or vim.bo[buf].buftype ~= 'terminal' then
    return false
  end
  local wins = vim.fn.win_findbuf(buf)
  local here = vim.api.nvim_get_current_tabpage()
  table.sort(wins, function(a, b)
    return (vim.api.nvim_win_get_tabpage(a) == here and 0 or 1) < (vim.api.nvim_win_get_tabpage(b) == here and 0 or 1)
  end)
  if wins[1] then
    vim.api.nvim_set_current_tabpage(vim.api.nvim_win_get_tabpage(wins[1]))
    vim.api.nvim_set_current_win(wins[1])
  else
    vim.cmd('botright sbuffer ' .. buf)
  end
  return true
end

---Adds a route: when `source` finishes a turn, its result goes to `target` (|madohub-routes|).
---Source and target: a buffer number, a fleet id (`term:12`, `job:1a2b3c4d`), a name, or for a
---target `file:PATH`. Returns the route's id; a refused route raises an error that says why.
---@param source string|integer
---@param target string|integer
---@param opts madohub.RouteOpts|nil
---@return string
function M.route(source, target, opts)
  return require('madohub.routes').route(source, target, opts)
end

---Copies of the routes of this Neovim.
---@return madohub.Route[]
function M.routes()
  return require('madohub.routes').get()
end

---Removes a route; false when there is none of that id.
---@param id string
---@return boolean
function M.unroute(id)
  return require('madohub.routes').unroute(id)
end

---Statusline text: in a window that shows a watched terminal, its label (for users who turn the
---winbar off); in any other window, what needs you (`2 waiting · 1 done`, '' for nothing).
---@return string
function M.statusline()
  local win = vim.g.statusline_winid or vim.api.nvim_get_current_win()
  local ok, buf = pcall(vim.api.nvim_win_get_buf, win)
  local label = ok and require('madohub.ui.label').render(buf) or ''
  if label ~= '' or not M.configured then
    return label
  end
  return require('madohub.attention').text()
end

return M
