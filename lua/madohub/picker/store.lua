---The picker's own state across sessions: grouping, folded groups and the last filter per folder,
---in `$XDG_STATE_HOME/madohub/fleet-ui.json` (0600). Read as hostile input: bounded, checked field
---by field; a file that is none reads as the defaults.
local M = {}

local MAX_BYTES = 256 * 1024
local MAX_FILTERS = 200

---@class madohub.PickerSaved
---@field group_by "state"|"dir"
---@field folded table<string, boolean>
---@field filters table<string, string> Folder → last filter.

---@type string|nil
local state_dir = nil

---The file, in the folder the Node side keeps MadoHub's state in (asked once); nil while it is not known.
---@return string|nil
function M.path()
  if not state_dir then
    local node = require('madohub.node')
    node.ensure()
    local paths = node.request('paths')
    state_dir = type(paths) == 'table' and type(paths.stateDir) == 'string' and paths.stateDir or nil
  end
  return state_dir and (state_dir .. '/fleet-ui.json') or nil
end

---@return madohub.PickerSaved
function M.load()
  local saved = { group_by = 'state', folded = {}, filters = {} }
  local file = M.path()
  if not file then
    return saved
  end
  -- lstat: a link planted in its place is no state file (it is not read, and a save replaces it).
  local stat = vim.uv.fs_lstat(file)
  if not stat or stat.type ~= 'file' or stat.size > MAX_BYTES then
    return saved
  end
  local ok, data = pcall(function()
    return vim.json.decode(table.concat(vim.fn.readfile(file, 'b'), '\n'))
  end)
  if not ok or type(data) ~= 'table' then
    return saved
  end
  if data.group_by == 'dir' then
    saved.group_by = 'dir'
  end
  if type(data.folded) == 'table' then
    for k, v in pairs(data.folded) do
      if type(k) == 'string' and v == true then
        saved.folded[k] = true
      end
    end
  end
  if type(data.filters) == 'table' then
    for k, v in pairs(data.filters) do
      if type(k) == 'string' and type(v) == 'string' and #v <= 200 then
        saved.filters[k] = v
      end
    end
  end
  return saved
end

---Writes the state atomically: a temporary file of a fresh name, created exclusively (O_EXCL: never
---through a link planted there), renamed over the old one. Failures are said once.
---@param saved madohub.PickerSaved
function M.save(saved)
  local file = M.path()
  if not file then
    return
  end
  local filters, n = {}, 0
  for k, v in pairs(saved.filters) do
    if v ~= '' and n < MAX_FILTERS then
      filters[k] = v
      n = n + 1
    end
  end
  local folded = next(saved.folded) and saved.folded or vim.empty_dict()
  local text = vim.json.encode({
    group_by = saved.group_by,
    folded = folded,
    filters = next(filters) and filters or vim.empty_dict(),
  })
  local ok, err = pcall(function()
    vim.fn.mkdir(vim.fn.fnamemodify(file, ':h'), 'p', tonumber('700', 8))
    local tmp = ('%s.%d.%x.tmp'):format(file, vim.uv.os_getpid(), math.random(0, 0x7fffffff))
    local fd = assert(vim.uv.fs_open(tmp, 'wx', tonumber('600', 8)))
    local wrote, werr = vim.uv.fs_write(fd, text)
    vim.uv.fs_close(fd)
    if not wrote then
      vim.uv.fs_unlink(tmp)
      error(werr)
    end
    local renamed, rerr = vim.uv.fs_rename(tmp, file)
    if not renamed then
      vim.uv.fs_unlink(tmp)
      error(rerr)
    end
  end)
  if not ok and not M.warned then
    M.warned = true
    require('madohub.util').notify(
      ('cannot keep the picker state in %s: %s'):format(file, tostring(err)),
      vim.log.levels.WARN
    )
  end
end

return M
