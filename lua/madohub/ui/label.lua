---The label of a terminal: agent name, state word and time in that state, as statusline text.
local config = require('madohub.config')
local highlight = require('madohub.ui.highlight')
local util = require('madohub.util')

local M = {}

---Spinner frame index, advanced by the animation timer.
M.frame = 1

---@param ms number
---@return string
function M.duration(ms)
  local s = math.max(0, math.floor(ms / 1000))
  if s < 60 then
    return s .. 's'
  elseif s < 3600 then
    return math.floor(s / 60) .. 'm'
  end
  return ('%dh%02dm'):format(math.floor(s / 3600), math.floor(s % 3600 / 60))
end

---@param text string
---@return string
local function escape(text)
  return (text:gsub('%%', '%%%%'))
end

---The word of a state; a Failed turn's says why (the detectors say `interrupted` for an
---interrupt, anything else is an error: the Node side says which).
---@param st { state: madohub.StateName, interrupted: boolean|nil }
---@return string
function M.word(st)
  local words = config.options.words
  if st.state == 'failed' then
    return st.interrupted == true and words.interrupted or words.error
  end
  return words[st.state] or st.state
end

---The plain label text, without highlight markers.
---@param st madohub.State
---@param name string|nil the name the user gave the terminal, shown before its agent
---@return string
function M.text(st, name)
  local opts = config.options
  local parts = {}
  if st.state == 'working' and #opts.winbar.spinner > 0 then
    parts[#parts + 1] = opts.winbar.spinner[(M.frame - 1) % #opts.winbar.spinner + 1]
  end
  if name and name ~= '' then
    parts[#parts + 1] = name .. ' ·'
  end
  parts[#parts + 1] = require('madohub.state').agent_name(st.agent)
  local word = M.word(st)
  local status = require('madohub.util').value(st.exit)
  if st.state == 'exited' and type(status) == 'number' then
    word = ('%s %d'):format(word, status)
  end
  parts[#parts + 1] = word
  if st.confirmed and opts.winbar.confirmed ~= '' then
    parts[#parts + 1] = opts.winbar.confirmed
  end
  if opts.winbar.time then
    parts[#parts + 1] = M.duration(util.now_ms() - st.since)
  end
  return table.concat(parts, ' ')
end

---The label as statusline text with its highlight group, or '' when `buf` is not tracked.
---@param buf integer
---@return string
function M.render(buf)
  local st = require('madohub.state').get(buf)
  if not st then
    return ''
  end
  local e = require('madohub.fleet').terminal(buf)
  local name = e and e.named == true and e.name or nil
  local s = ('%%#%s# %s %%*'):format(highlight.groups[st.state] or 'Normal', escape(M.text(st, name)))
  if config.options.winbar.detail and st.detail ~= '' then
    s = s .. ' ' .. escape(st.detail)
  end
  -- A view of a job says so, and how to leave it, while it is attached.
  local viewed = vim.b[buf].madohub_job
  if viewed and st.state ~= 'exited' then
    s = s .. ' ' .. escape(('job %s · Ctrl-] detaches'):format(viewed))
  end
  -- Where its finished turns go (routes).
  local routes = package.loaded['madohub.routes']
  if routes then
    -- A terminal that shows a job (`mado attach`) is that job's entry.
    local ids = require('madohub.ids')
    local ref = viewed and require('madohub.jobs').parse_ref(viewed)
    for _, r in ipairs(routes.from(ref and ids.job(ref.id, ref.host) or ids.term(buf))) do
      s = s .. ' → ' .. escape(routes.target_name(r)) .. (r.paused and ' (paused)' or '')
    end
  end
  return s
end

return M
