---A lualine component: what needs you (`2 waiting · 1 done`), from require('madohub').summary().
---In your lualine config: `sections = { lualine_x = { 'madohub' } }`.
local M = require('lualine.component'):extend()

function M:update_status()
  local madohub = require('madohub')
  return madohub.configured and madohub.summary().text or ''
end

return M
