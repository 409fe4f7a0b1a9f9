---How a row of the picker reads: the state's glyph and word (coloured by the `Mado*` groups), the
---name, the agent, where it runs, the headline and how long it has been in its state.
local config = require('madohub.config')
local highlight = require('madohub.ui.highlight')
local label = require('madohub.ui.label')
local states = require('madohub.states')
local view = require('madohub.picker.view')

local M = {}

---How long, coarsely (the picker redraws its ages once a minute): `<1m`, `3m`, `2h05m`, `3d`.
---@param ms number
---@return string
function M.age(ms)
  local m = math.floor(math.max(0, ms) / 60000)
  if m < 1 then
    return '<1m'
  elseif m < 60 then
    return m .. 'm'
  elseif m < 24 * 60 then
    return ('%dh%02dm'):format(math.floor(m / 60), m % 60)
  end
  return math.floor(m / 1440) .. 'd'
end

---Where an entry runs, for a person: `split 2` / `tab 3` / `hidden` (a terminal of this Neovim),
---`job` (`job · split 2` while attached here), `elsewhere`, `nvim 4711`.
---@param e madohub.FleetEntry
---@return string
function M.where(e)
  local function window_of(buf)
    local wins = vim.fn.win_findbuf(buf)
    local here = vim.api.nvim_get_current_tabpage()
    for _, w in ipairs(wins) do
      if vim.api.nvim_win_get_tabpage(w) == here then
        return 'split ' .. vim.api.nvim_win_get_number(w)
      end
    end
    if wins[1] then
      return 'tab ' .. vim.api.nvim_tabpage_get_number(vim.api.nvim_win_get_tabpage(wins[1]))
    end
    return 'hidden'
  end
  if e.kind == 'terminal' then
    return window_of(require('madohub.util').value(e.buf) or -1)
  elseif e.kind == 'job' then
    local buf = require('madohub.util').value(e.buf)
    -- A remote host's job: `job on box`.
    local job = (e.host or '') ~= '' and ('job on ' .. e.host) or 'job'
    return buf and (job .. ' · ' .. window_of(buf)) or job
  elseif e.kind == 'session' then
    return 'elsewhere'
  end
  return e.where
end

---Cuts `text` to `width` display cells (with `…`), and pads it to them.
---@param text string
---@param width integer
---@return string
function M.fit(text, width)
  text = text:gsub('[%c]', ' ')
  local w = vim.fn.strdisplaywidth(text)
  if w > width then
    local chars = vim.fn.strchars(text)
    local cut = text
    while w > width - 1 and chars > 0 do
      chars = chars - 1
      cut = vim.fn.strcharpart(text, 0, chars)
      w = vim.fn.strdisplaywidth(cut)
    end
    text = cut .. '…'
    w = w + 1
  end
  return text .. string.rep(' ', width - w)
end

---@class madohub.PickerLine
---@field text string
---@field marks { [1]: integer, [2]: integer, [3]: string }[] Byte ranges and their highlight groups.

---The lines of the rows, for a list `width` cells wide.
---@param rows madohub.PickerRow[]
---@param width integer
---@param now number Epoch ms.
---@param ui madohub.PickerUi
---@param names fun(agent: string): string
---@return madohub.PickerLine[]
function M.lines(rows, width, now, ui, names)
  local out = {}
  -- Column widths from what is shown, within bounds.
  local wword, wname, wagent, wwhere, wspend = 4, 8, 5, 3, 0
  local where_of, spend_of = {}, {}
  for _, r in ipairs(rows) do
    local e = r.entry
    if e then
      where_of[e.id] = M.where(e)
      spend_of[e.id] = require('madohub.usage').row(e)
      wspend = math.max(wspend, math.min(40, vim.fn.strdisplaywidth(spend_of[e.id])))
      local mark = e.confirmed and config.options.winbar.confirmed or ''
      wword =
        math.max(wword, vim.fn.strdisplaywidth(label.word(e)) + (mark ~= '' and 1 + vim.fn.strdisplaywidth(mark) or 0))
      wname = math.max(wname, math.min(28, vim.fn.strdisplaywidth(e.name)))
      wagent = math.max(wagent, math.min(12, vim.fn.strdisplaywidth(names(e.agent))))
      wwhere = math.max(wwhere, math.min(14, vim.fn.strdisplaywidth(where_of[e.id])))
    end
  end
  for _, r in ipairs(rows) do
    if r.label then
      local text = ('%s %s (%d)'):format(r.folded and '▸' or '▾', r.label, r.count)
      out[#out + 1] = { text = text, marks = { { 0, #text, 'Title' } } }
    else
      local e = r.entry --[[@as madohub.FleetEntry]]
      local group = highlight.groups[e.state] or 'Normal'
      local facts = states.of[e.state]
      local glyph = facts and facts.glyph or '?'
      local unseen = view.unseen(e, ui) and '•' or ' '
      local word = label.word(e)
      -- ✓ means what it means in the winbar: confirmed from the agent's records.
      local mark = e.confirmed and config.options.winbar.confirmed or ''
      local state_part = ('%s %s'):format(glyph, M.fit(mark ~= '' and (word .. ' ' .. mark) or word, wword))
      local age = ('%s %s'):format(word:lower(), M.age(now - e.since))
      local head = view.headline(e)
      local routes = package.loaded['madohub.routes']
      for _, r in ipairs(routes and routes.from(e.id) or {}) do
        head = ('→ %s · %s'):format(routes.target_name(r), head)
      end
      if e.pending ~= '' then
        head = ('[%s] %s'):format(require('madohub.pending')[e.pending] or e.pending, head)
      end
      -- A finished turn not seen yet that changed files says how many (D reviews it).
      local changed = require('madohub.util').value(e.changed)
      if unseen ~= ' ' and type(changed) == 'number' and changed > 0 then
        head = ('%d file%s changed · %s'):format(changed, changed == 1 and '' or 's', head)
      end
      if require('madohub.attention').mutes[e.id] then
        head = '[muted] ' .. head
      end
      local left = ('  %s%s  %s  %s  %s  '):format(
        unseen,
        state_part,
        M.fit(e.name, wname),
        M.fit(names(e.agent), wagent),
        M.fit(where_of[e.id], wwhere)
      )
      -- What it spent (|madohub-usage|), in a column of its own before the age.
      local spend = wspend > 0 and (M.fit(spend_of[e.id], wspend) .. '  ') or ''
      local room = width
        - vim.fn.strdisplaywidth(left)
        - vim.fn.strdisplaywidth(spend)
        - vim.fn.strdisplaywidth(age)
        - 1
      local text = left .. M.fit(head, math.max(0, room)) .. ' ' .. spend .. age
      local s0 = 2 + #unseen
      local marks = { { s0, s0 + #state_part, group } }
      local hs = #left
      marks[#marks + 1] = { hs, hs + #M.fit(head, math.max(0, room)), e.state == 'waiting' and group or 'Comment' }
      if spend ~= '' then
        local over = require('madohub.util').value(e.usage)
        local warn = type(over) == 'table' and #(over.overBudget or {}) > 0
        local ss = #text - #age - #spend
        marks[#marks + 1] = { ss, ss + #spend, warn and 'WarningMsg' or 'Comment' }
      end
      marks[#marks + 1] = { #text - #age, #text, 'Comment' }
      if unseen ~= ' ' then
        marks[#marks + 1] = { 2, 2 + #unseen, highlight.groups.completed }
      end
      out[#out + 1] = { text = text, marks = marks }
    end
  end
  return out
end

return M
