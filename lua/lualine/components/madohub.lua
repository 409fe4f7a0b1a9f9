---A lualine component: what needs you (`2 waiting · 1 done`), from require('madohub').summary(), and
---with `spending = true` what the agents spent today (`$3.20 today`, |madohub-usage|).
---In your lualine config: `sections = { lualine_x = { 'madohub' } }`, or `{ 'madohub', spending = true }`.
local M = require('lualine.component'):extend()

function M:update_status()
  local madohub = require('madohub')
  if not madohub.configured then
    return ''
  end
  local text = madohub.summary().text
  local today = self.options and self.options.spending and madohub.spending().text or ''
  if today == '' or text == '' then
    return text .. today
  end
  return text .. ' · ' .. today
end

return M
