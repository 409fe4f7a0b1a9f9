---Writing into a terminal of this Neovim: the one primitive for replies and menu answers to
---terminals (the Node side decides when and builds the bytes; this writes). A reply is a paste
---(its bytes as the Node side made them: nothing in them is a key), then Enter apart; a menu's keys
---go as they are.
local M = {}

---@class madohub.KeptReply
---@field text string
---@field terms { waitMenus: boolean, busyMs: number|nil }

---The replies that wait for each terminal, first first, as the Node side said (their text and
---terms), kept here while they wait: a Node process that dies and starts again gets them back, and
---the first is forgotten as it is written (so each is delivered once).
---@type table<integer, madohub.KeptReply[]>
local kept = {}

---Enter follows a paste after this long (an agent reads a paste and an Enter in one read as text).
local ENTER_DELAY_MS = 50

---The user is in Terminal mode in a window of `buf`.
---@param buf integer
---@return boolean
function M.typing_in(buf)
  return vim.api.nvim_get_mode().mode == 't' and vim.api.nvim_get_current_buf() == buf
end

---Writes `data` into terminal `buf`. Answers '' once written, `typing` when the user is in Terminal
---mode in its window (a reply waits then), or why it cannot.
---@param buf integer
---@param data string
---@param how "paste"|"keys"
---@return string
function M.write(buf, data, how)
  if type(buf) ~= 'number' or not vim.api.nvim_buf_is_valid(buf) or vim.bo[buf].buftype ~= 'terminal' then
    return 'the terminal is gone'
  end
  local chan = vim.bo[buf].channel
  if not chan or chan <= 0 or vim.fn.jobwait({ chan }, 0)[1] ~= -1 then
    return 'its program has ended'
  end
  if how == 'paste' then
    if M.typing_in(buf) then
      return 'typing'
    end
    vim.api.nvim_chan_send(chan, data)
    -- Written (the first that waited): a Node process that starts again does not get it back (delivered once).
    if kept[buf] then
      table.remove(kept[buf], 1)
      if #kept[buf] == 0 then
        kept[buf] = nil
      end
    end
    vim.defer_fn(function()
      pcall(vim.api.nvim_chan_send, chan, '\r')
    end, ENTER_DELAY_MS)
  else
    vim.api.nvim_chan_send(chan, data)
  end
  return ''
end

---@param buf integer
---@param replies madohub.KeptReply[]|nil the replies that wait, first first; nil (or vim.NIL, or {}): none
function M.keep(buf, replies)
  local list = {}
  for _, r in ipairs(type(replies) == 'table' and replies or {}) do
    if type(r) == 'table' and type(r.text) == 'string' and type(r.terms) == 'table' then
      list[#list + 1] = r
    end
  end
  kept[buf] = #list > 0 and list or nil
end

---Gives the replies that waited to a Node process that has just started, in their order.
function M.restore()
  for buf, list in pairs(kept) do
    if vim.api.nvim_buf_is_valid(buf) then
      kept[buf] = nil
      for _, r in ipairs(list) do
        require('madohub.node').call(
          'terminal_reply',
          { buf = buf, text = r.text, typing = false, kept = r.terms },
          function(_, err)
            if err then
              require('madohub.util').notify(
                ('a reply that waited for buffer %d was dropped: %s'):format(buf, err),
                vim.log.levels.WARN
              )
            end
          end
        )
      end
    else
      kept[buf] = nil
    end
  end
end

---Tells the Node side that the user entered or left Terminal mode in a watched terminal: a reply
---that waits is held meanwhile, and what the user types there starts a chain of its own (routes).
---@param buf integer
---@param typing boolean
function M.mode_changed(buf, typing)
  if require('madohub.watch').is_watched(buf) then
    require('madohub.node').notify('typing', { buf = buf, typing = typing })
  end
end

---The Node side's call that sends `text` to entry `e` as a reply (a terminal's or a job's: queued while
---it works, held while the user has a draft): its op and arguments, or nil for an entry that takes none.
---The one primitive of the picker's reply and the review's comments.
---@param e madohub.FleetEntry
---@param text string
---@return string|nil, table|nil
function M.message(e, text)
  if e.kind == 'terminal' then
    return 'terminal_reply', { buf = require('madohub.util').value(e.buf), text = text, typing = false }
  elseif e.kind == 'job' then
    return 'run', require('madohub.ops').job_message('send', require('madohub.jobs').ref(e), { text = text })
  end
  return nil, nil
end

return M
