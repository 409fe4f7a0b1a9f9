---How the picker asks the Node side for an action on a row: one call, its error said in the picker.
local M = {}

---Asks Node; `done` gets the result, an error is said with `what`.
---@param what string
---@param op string
---@param args table
---@param done fun(result: table)|nil
---@param failed fun(err: string)|nil
function M.call(what, op, args, done, failed)
  local picker = require('madohub.picker')
  require('madohub.node').call(op, args, function(result, err)
    if err then
      picker.say(('%s: %s'):format(what, err), vim.log.levels.ERROR)
      if failed then
        failed(err)
      end
    elseif done then
      done(result or {})
    end
  end)
end

---The buffer of a terminal entry of this Neovim, or nil.
---@param e madohub.FleetEntry
---@return integer|nil
function M.term_buf(e)
  return e.kind == 'terminal' and require('madohub.util').value(e.buf) or nil
end

return M
