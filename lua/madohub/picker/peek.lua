---The picker's peek pane: the row's live screen (a terminal's last lines, a job's screen as its host
---renders it), the question and its choices first while the agent waits.
local format = require('madohub.picker.format')
local label = require('madohub.ui.label')
local layout = require('madohub.picker.layout')
local view = require('madohub.picker.view')

local M = {}
local H = {}

local ns = vim.api.nvim_create_namespace('madohub.picker.peek')

---@return table
local function picker()
  return require('madohub.picker')
end

local function names(agent)
  return require('madohub.state').agent_name(agent)
end

---The lines the peek pane shows for `e` (the question first when it waits, then its screen).
---@param p madohub.Picker
---@param e madohub.FleetEntry
---@param height integer
---@return string[]
function H.peek_lines(p, e, height)
  local out = {}
  out[#out + 1] = ('%s · %s · %s · %s'):format(e.name, names(e.agent), label.word(e), format.where(e))
  if e.cwd ~= '' then
    out[#out + 1] = vim.fn.fnamemodify(e.cwd, ':~')
  end
  if e.pending ~= '' then
    out[#out + 1] = 'reply: ' .. (require('madohub.pending')[e.pending] or e.pending)
  end
  -- What it spent: this turn, the session (|madohub-usage|).
  vim.list_extend(out, require('madohub.usage').lines(e))
  if e.state == 'waiting' and type(e.needs) == 'table' then
    out[#out + 1] = ''
    out[#out + 1] = 'Asks: ' .. (e.needs.question or '')
    for i, o in ipairs(e.needs.options or {}) do
      out[#out + 1] = ('  %d. %s'):format(i, o)
    end
  end
  out[#out + 1] = string.rep('─', 20)
  local screen
  if e.kind == 'terminal' then
    local buf = require('madohub.util').value(e.buf)
    local snap = buf and vim.api.nvim_buf_is_valid(buf) and require('madohub.watch').snapshot(buf)
    screen = snap and snap.lines or {}
  elseif e.kind == 'job' then
    local got = p.job_screens[e.id]
    screen = got and got.lines or { '(reading its screen…)' }
  else
    screen = {
      ('It runs %s: its screen is not shown here.'):format(
        e.kind == 'session' and ('elsewhere (' .. e.where .. ')') or ('in ' .. e.where)
      ),
      e.detail,
    }
  end
  while #screen > 0 and vim.trim(screen[#screen]) == '' do
    screen[#screen] = nil
  end
  local room = math.max(0, height - #out)
  for i = math.max(1, #screen - room + 1), #screen do
    out[#out + 1] = (screen[i]:gsub('%c', ' '))
  end
  return out
end

---Fetches a job's rendered screen from its host (through Node), when its entry changed since.
---@param p madohub.Picker
---@param e madohub.FleetEntry
function H.fetch_job_screen(p, e)
  local key = e.state .. '\0' .. e.detail .. '\0' .. e.since
  local got = p.job_screens[e.id]
  if got and (got.key == key or got.fetching) then
    return
  end
  p.job_screens[e.id] = { key = key, lines = got and got.lines or { '(reading its screen…)' }, fetching = true }
  local message = require('madohub.ops').job_message('screen', require('madohub.jobs').ref(e))
  require('madohub.node').call('run', message, function(result, err)
    p.job_screens[e.id] = { key = key, lines = result and result.lines or { err and ('(' .. err .. ')') or '' } }
    if picker().current == p and p.peek_win and p.peek_id == e.id then
      M.draw(p)
    end
  end)
end

---Draws the peek pane for the selected entry.
---@param p madohub.Picker
function M.draw(p)
  if not p.peek_win or not vim.api.nvim_win_is_valid(p.peek_win) then
    return
  end
  local e = picker().entry(p)
  p.peek_id = e and e.id or nil
  local lines = { '(no agent on this row)' }
  if e then
    if e.kind == 'job' then
      H.fetch_job_screen(p, e)
    elseif e.kind == 'terminal' then
      H.follow_terminal(p, require('madohub.util').value(e.buf))
    end
    lines = H.peek_lines(p, e, vim.api.nvim_win_get_height(p.peek_win))
    -- A finished turn looked at is seen.
    if view.unseen(e, p.ui) then
      p.ui.seen[e.id] = e.since
    end
  end
  vim.bo[p.peek_buf].modifiable = true
  vim.api.nvim_buf_set_lines(p.peek_buf, 0, -1, false, lines)
  vim.bo[p.peek_buf].modifiable = false
  vim.api.nvim_buf_clear_namespace(p.peek_buf, ns, 0, -1)
  vim.api.nvim_buf_set_extmark(p.peek_buf, ns, 0, 0, { end_row = 0, end_col = #lines[1], hl_group = 'Title' })
end

---Redraws the peek pane when the terminal it shows changes (its buffer's lines, coalesced).
---@param p madohub.Picker
---@param buf integer|nil
function H.follow_terminal(p, buf)
  if not buf or p.followed == buf or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  p.followed = buf
  local pending = false
  vim.api.nvim_buf_attach(buf, false, {
    on_lines = function()
      if picker().current ~= p or p.followed ~= buf or not p.peek_win then
        if p.followed == buf then
          p.followed = nil
        end
        return true -- detach
      end
      if not pending then
        pending = true
        vim.defer_fn(function()
          pending = false
          if picker().current == p and p.peek_id == require('madohub.ids').term(buf) then
            M.draw(p)
          end
        end, 50)
      end
    end,
  })
end

---@param p madohub.Picker
function M.toggle(p)
  if p.peek_win then
    pcall(vim.api.nvim_win_close, p.peek_win, true)
    p.peek_win, p.peek_buf, p.peek_id, p.followed = nil, nil, nil, nil
    picker().relayout(p)
    return
  end
  p.peek_buf = layout.scratch('madohub_peek')
  picker().relayout(p, true)
  local g = layout.geometry(true).peek
  p.peek_win = vim.api.nvim_open_win(p.peek_buf, false, {
    relative = 'editor',
    row = g.row,
    col = g.col,
    width = g.width,
    height = g.height,
    style = 'minimal',
    border = layout.border(),
    title = ' Peek ',
    title_pos = 'center',
    zindex = 50,
  })
  vim.wo[p.peek_win].wrap = false
  M.draw(p)
end

return M
