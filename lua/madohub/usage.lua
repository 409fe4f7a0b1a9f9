---What the agents spend, in Lua's words (|madohub-usage|): an entry's usage as its row, the peek pane
---and the statusline show it, and the fleet's spending today. The figures are the Node side's (each
---entry's `usage`, the fleet's `spending()`); this only writes them short.
local M = {}

---A count of tokens, short: `950`, `12.3k`, `4.5M`.
---@param n number
---@return string
function M.tokens(n)
  local function short(x, unit)
    local text = x < 10 and ('%.1f'):format(x) or ('%d'):format(math.floor(x + 0.5))
    return (text:gsub('%.0$', '')) .. unit
  end
  if n < 1000 then
    return tostring(math.floor(n))
  elseif n < 1e6 then
    return short(n / 1e3, 'k')
  elseif n < 1e9 then
    return short(n / 1e6, 'M')
  end
  return short(n / 1e9, 'B')
end

---A cost in US dollars, short: `$0.41`, `<$0.01`; nil when it is not known.
---@param usd number|nil
---@return string|nil
function M.cost(usd)
  usd = require('madohub.util').value(usd)
  if type(usd) ~= 'number' then
    return nil
  elseif usd > 0 and usd < 0.005 then
    return '<$0.01'
  end
  return ('$%.2f'):format(usd)
end

---All the tokens of a spend.
---@param s madohub.Spend
---@return number
function M.sum(s)
  return s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheWriteTokens
end

---A spend in one short phrase: `12.3k tok · $0.41` (no cost where none is known).
---@param s madohub.Spend
---@return string
function M.short(s)
  local cost = M.cost(s.costUsd)
  return M.tokens(M.sum(s)) .. ' tok' .. (cost and (' · ' .. cost) or '')
end

---An entry's usage as its row shows it: its session's spend, `ctx 87%` once its context is nearly
---full (`usage.context_pct` of setup()), `over turn`/`over session` past a budget; '' when not known.
---@param e madohub.FleetEntry
---@return string
function M.row(e)
  local u = require('madohub.util').value(e.usage)
  if type(u) ~= 'table' then
    return ''
  end
  local parts = { M.short(u) }
  local pct = require('madohub.util').value(u.contextUsedPct)
  if type(pct) == 'number' and pct >= require('madohub.config').options.usage.context_pct then
    parts[#parts + 1] = ('ctx %d%%'):format(pct)
  end
  for _, limit in ipairs(u.overBudget or {}) do
    parts[#parts + 1] = 'over ' .. limit
  end
  return table.concat(parts, ' · ')
end

---An entry's usage in lines, as the peek pane shows it: this turn, the session (its sub-agents'
---part), its context and model; none when not known.
---@param e madohub.FleetEntry
---@return string[]
function M.lines(e)
  local u = require('madohub.util').value(e.usage)
  if type(u) ~= 'table' then
    return {}
  end
  local session = 'session ' .. M.short(u)
  local subs = require('madohub.util').value(u.subAgents)
  if type(subs) == 'table' then
    session = session .. (' (sub-agents %s)'):format(M.short(subs))
  end
  local facts = {}
  local pct = require('madohub.util').value(u.contextUsedPct)
  if type(pct) == 'number' then
    facts[#facts + 1] = ('context %d%% used'):format(pct)
  end
  if u.model ~= '' then
    facts[#facts + 1] = u.model
  end
  for _, limit in ipairs(u.overBudget or {}) do
    facts[#facts + 1] = ('over its %s budget'):format(limit)
  end
  local out = { 'this turn ' .. M.short(u.turn), session }
  if #facts > 0 then
    out[#out + 1] = table.concat(facts, ' · ')
  end
  return out
end

---What the fleet spent today, short (`$3.20 today`, `12k tok today` where no cost is known, with
---`over budget` past the day's); '' before anything is known or when nothing was spent.
---@return string
function M.today()
  local s = require('madohub.fleet').spending()
  if not s or M.sum(s.today) == 0 then
    return ''
  end
  local text = (M.cost(s.today.costUsd) or (M.tokens(M.sum(s.today)) .. ' tok')) .. ' today'
  return s.overDay and (text .. ' (over budget)') or text
end

return M
