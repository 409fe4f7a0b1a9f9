---What the picker's input line does with its text, by mode: starts a new job, sends a reply, sets
---the filter, renames a row.
local config = require('madohub.config')
local input = require('madohub.picker.input')
local picker = require('madohub.picker')
local call = require('madohub.picker.call').call

local M = {}

---What the input line's text does, by mode: a new job, a reply, a filter, a name.
---@param p madohub.Picker
---@param mode "new"|"reply"|"filter"|"rename"
---@param target string|nil
---@param text string
---@param attach boolean
function M.submit(p, mode, target, text, attach)
  local e = target and require('madohub.fleet').find(target)
  if mode == 'filter' then
    p.ui.filter = vim.trim(text)
    input.leave(p)
    return picker.render(p)
  end
  if vim.trim(text) == '' then
    return input.leave(p, true)
  end
  if mode == 'new' then
    -- The words stay in the line until the job has started (a failure leaves them to try again).
    call(
      'new agent',
      'dispatch',
      { line = text, cwd = vim.fn.getcwd(), agent = config.options.picker.default_agent },
      function(r)
        -- A job started on a remote host (`--host NAME`) is named as :MadoAttach takes it: NAME:ID.
        local id = type(r.host) == 'string' and (r.host .. ':' .. r.short) or r.short
        picker.say(('started job %s'):format(id) .. (type(r.warning) == 'string' and (' (' .. r.warning .. ')') or ''))
        if picker.current == p and vim.api.nvim_buf_is_valid(p.input_buf) and p.input.mode == 'new' then
          vim.api.nvim_buf_set_lines(p.input_buf, 0, -1, false, { '' })
          input.placeholder(p)
        end
        if attach then
          picker.close()
          require('madohub.jobs').attach(id)
        end
      end
    )
    return input.leave(p)
  end
  if not target then
    picker.say('no agent on this row: nothing sent', vim.log.levels.WARN)
    return input.leave(p, true)
  end
  if not e then
    picker.say('that agent is gone', vim.log.levels.WARN)
    return input.leave(p, true)
  end
  if mode == 'rename' then
    call('rename', 'mark', { id = e.id, name = text }, function()
      picker.say(('renamed %s to %s'):format(e.name, vim.trim(text)))
    end)
    return input.leave(p, true)
  end
  -- A reply: the text stays in the line until it is taken (a failed send keeps it to try again).
  local function taken(r)
    local pending = require('madohub.pending')[r.pending or ''] or ''
    -- Back to the list first: leaving Insert mode clears the message area.
    if picker.current == p then
      input.leave(p, true)
    end
    picker.say(pending == '' and ('sent to %s'):format(e.name) or ('%s: %s (sent when it may)'):format(e.name, pending))
  end
  local op, args = require('madohub.reply').message(e, text)
  if op then
    call('reply', op, args, taken)
  end
end

return M
