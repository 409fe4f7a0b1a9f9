---The fleet's ids on the Lua side, made and read here only (the Node side's codec is
---src/shared/fleet-id.ts; |madohub-glossary|). Elsewhere Lua reads the fields an entry carries
---(`buf`, `short`, `host`, `shows`), never its id.
local M = {}

---A terminal of this Neovim.
---@param buf integer
---@return string
function M.term(buf)
  return ('term:%d'):format(buf)
end

---A job: this machine's (`host` nil or ''), or a remote host's.
---@param short string
---@param host string|nil
---@return string
function M.job(short, host)
  if host and host ~= '' then
    return ('job:%s:%s'):format(host, short)
  end
  return 'job:' .. short
end

---A buffer that is no terminal, as a route's target.
---@param buf integer
---@return string
function M.buf(buf)
  return ('buf:%d'):format(buf)
end

---The buffer of a terminal's id; nil for any other id.
---@param id string
---@return integer|nil
function M.term_buf(id)
  local buf = type(id) == 'string' and id:match('^term:(%d+)$') or nil
  return buf and tonumber(buf) or nil
end

return M
