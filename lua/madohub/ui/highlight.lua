---Highlight groups of the states, and one window highlight namespace per state that colours a
---terminal window's separator. Groups are defined with `default = true`, so a colour scheme or the
---user's own definitions win; they are applied again on ColorScheme.
local M = {}

local states = require('madohub.states')

---`MadoWorking` for `working`, and so on.
---@type table<madohub.StateName, string>
M.groups = {}
for _, s in ipairs(states.list) do
  M.groups[s.name] = 'Mado' .. s.name:sub(1, 1):upper() .. s.name:sub(2)
end

---@type table<madohub.StateName, integer>
M.namespaces = {}

---The picker's selected row: PmenuSel has a cterm attribute (reverse), so the row shows in a
---256-colour terminal too, where CursorLine has only a GUI colour.
M.selected = 'MadoPickerSelected'

function M.apply()
  vim.api.nvim_set_hl(0, M.selected, { link = 'PmenuSel', default = true })
  for state, group in pairs(M.groups) do
    -- The standard group each state's group links to by default.
    vim.api.nvim_set_hl(0, group, { link = states.of[state].link, default = true })
    local ns = M.namespaces[state] or vim.api.nvim_create_namespace('madohub.window.' .. state)
    M.namespaces[state] = ns
    vim.api.nvim_set_hl(ns, 'WinSeparator', { link = group })
  end
end

---@param win integer
---@param state madohub.StateName|nil nil restores the global highlights
function M.set_window(win, state)
  local ns = state and M.namespaces[state] or 0
  pcall(vim.api.nvim_win_set_hl_ns, win, ns)
end

return M
