---The Lua end of the wire from the Node process: every message it sends comes to `receive`, every
---question it asks to `answer` (src/nvim/lua-wire.ts names this module and nothing else of Lua). Each
---is handed, by its `type`, to the one module it is for.
local M = {}

---@class madohub.wire.Message
---@field type string

---@type table<string, fun(msg: table)>
local receivers = {
  -- One batch: the fleet's entries (the one cache, terminals' states in it), then the events of the
  -- terminals' state changes, which compare with what the cache said before.
  changes = function(m)
    local state = require('madohub.state')
    local before = state.before(m.states)
    local fleet = require('madohub.fleet')
    if #m.put > 0 or #m.removed > 0 or m.editorsNotShown ~= fleet.not_shown.editorsNotShown then
      fleet.apply(m.put, m.removed, { editorsNotShown = m.editorsNotShown })
    end
    if #m.states > 0 then
      state.changed(m.states, before)
    end
    if type(m.spending) == 'table' then
      fleet.set_spending(m.spending)
    end
    require('madohub.attention').apply(m.wanted, m.notices)
  end,
  mutes = function(m)
    require('madohub.attention').set_mutes(m.mutes)
  end,
  jump = function(m)
    require('madohub.attention').jump_to(m.id)
  end,
  answer = function(m)
    require('madohub.node').answer(m.ask, m.result, m.error)
  end,
  agents = function(m)
    require('madohub.state').set_agents(m.agents)
  end,
  -- The screen rules changed (a rule file of the user's): every terminal is read again.
  rescreen = function()
    local watch = require('madohub.watch')
    for _, buf in ipairs(watch.buffers()) do
      watch.touch(buf)
    end
  end,
  say = function(m)
    require('madohub.util').notify(m.message, m.warn == true and vim.log.levels.WARN or nil)
  end,
  kept = function(m)
    require('madohub.reply').keep(m.buf, m.replies)
  end,
  routes = function(m)
    require('madohub.routes').apply(m.routes)
  end,
  review = function(m)
    require('madohub.routes.deliver').review(m.review, m.route, m.text)
  end,
  route_event = function(m)
    require('madohub.routes').event(m.kind, m.data)
  end,
}

---@type table<string, fun(msg: table): any>
local answerers = {
  write = function(m)
    return require('madohub.reply').write(m.buf, m.data, m.how)
  end,
  append = function(m)
    return require('madohub.routes.deliver').append(m.buf, m.lines)
  end,
  show = function(m)
    return require('madohub').show_terminal(m.buf)
  end,
}

---A message from the Node process.
---@param msg madohub.wire.Message
function M.receive(msg)
  local fn = type(msg) == 'table' and receivers[msg.type]
  if fn then
    fn(msg)
  end
end

---A question from the Node process (this Neovim's, or another Neovim's for `show`); its answer.
---@param msg madohub.wire.Message
---@return any
function M.answer(msg)
  local fn = type(msg) == 'table' and answerers[msg.type]
  if not fn then
    return ('madohub: no answer to %s'):format(vim.inspect(type(msg) == 'table' and msg.type or msg))
  end
  return fn(msg)
end

---The types this end takes (a test checks them against the Node side's).
M.types = { receive = vim.tbl_keys(receivers), answer = vim.tbl_keys(answerers) }

return M
