---The Node side's operations (src/ops/, one file each), called by name with their arguments: the
---same entry `mado NAME` runs, here or by the bridge of the remote host a row is of.
local M = {}

---The message that runs operation `name` with `args` (on remote host `host` when given).
---@param name string
---@param args table
---@param host string|nil
---@return { name: string, args: table, host: string|nil }
function M.message(name, args, host)
  return { name = name, args = next(args) == nil and vim.empty_dict() or args, host = host }
end

---Runs operation `name` with `args` without blocking: `done` gets its result, or nil and the error.
---@param name string
---@param args table
---@param done fun(result: table|nil, err: string|nil)
---@param host string|nil
function M.call(name, args, done, host)
  require('madohub').boot()
  require('madohub.node').call('run', M.message(name, args, host), done)
end

return M
