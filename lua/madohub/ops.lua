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

---The message that runs operation `name` on the job `ref` names (`{ id, host }`), with `args` beside its id.
---@param name string
---@param ref { id: string, host: string|nil }
---@param args table|nil
---@return { name: string, args: table, host: string|nil }
function M.job_message(name, ref, args)
  return M.message(name, vim.tbl_extend('force', { id = ref.id }, args or {}), ref.host)
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
