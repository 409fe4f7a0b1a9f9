---:MadoReview — what an agent changed in its folder during one turn (issue 29), in a tab: its files
---with their status and +/- counts, and the file under the cursor as a diff (before | after, Neovim's
---diff mode). Comments on lines go back to the agent as one reply; a hunk is undone with a key. The
---turn, its files and their texts come from the Node side (the checkpoints of the terminal's Neovim side
---or of the job's host); this module shows them and keeps the comments of this Neovim.
local util = require('madohub.util')

local M = {}

---@class madohub.ReviewFile
---@field path string
---@field status "added"|"modified"|"deleted"|"renamed"
---@field oldPath string|nil
---@field diff string
---@field added integer
---@field removed integer
---@field note string|nil
---@field before string|nil Its text at the turn's start (vim.NIL: none there; nil: not sent).
---@field after string|nil Its text at the turn's end, as above.

---@class madohub.TurnReview
---@field agent string
---@field name string
---@field turn integer
---@field first integer
---@field last integer
---@field startedAt integer
---@field endedAt integer|nil
---@field folder string
---@field others string[]
---@field files madohub.ReviewFile[]
---@field skipped string|nil
---@field more integer|nil
---@field head string[] Its head in words, one line each (the Node side's).

---@class madohub.ReviewComment
---@field path string
---@field line integer
---@field side "before"|"after"
---@field line_text string
---@field text string
---@field sent boolean

---@class madohub.ReviewView
---@field id string The fleet id of the agent reviewed.
---@field review madohub.TurnReview
---@field tab integer
---@field list_buf integer
---@field before_buf integer
---@field after_buf integer
---@field list_win integer
---@field before_win integer
---@field after_win integer
---@field file integer The file shown (its index in review.files), 0: none.
---@field now table<integer, string|false> A file's text as X left it (false: removed), by index.

---The comments of this Neovim, by agent and turn (`id#turn`): kept when the tab closes.
---@type table<string, madohub.ReviewComment[]>
local comments = {}

---The open views, by tab.
---@type table<integer, madohub.ReviewView>
local views = {}

local ns = vim.api.nvim_create_namespace('madohub_review')

---The review's actions by name, each with what `?` and `:help madohub-review-keys` say of it.
---@type table<string, string>
M.actions = {
  next_file = 'next file',
  prev_file = 'previous file',
  next_turn = 'the next turn',
  prev_turn = 'the turn before',
  comment = 'comment on the line under the cursor',
  send = 'send every comment not sent yet as one reply',
  undo = 'undo the hunk under the cursor in the folder',
  open = 'in the list: show the file; in a diff: go to the list',
  help = 'show these keys',
  close = 'close the review',
}

---The order `?` lists them in.
M.order = { 'next_file', 'prev_file', 'next_turn', 'prev_turn', 'comment', 'send', 'undo', 'open', 'help', 'close' }

---@param v any
---@return string|nil
local function text_or_nil(v)
  return type(v) == 'string' and v or nil
end

---Lines of a text (its last line end makes no empty line).
---@param text string
---@return string[]
local function lines_of(text)
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  return lines
end

---@param view madohub.ReviewView
---@return madohub.ReviewComment[]
local function comments_of(view)
  local key = view.id .. '#' .. view.review.turn
  comments[key] = comments[key] or {}
  return comments[key]
end

---@param view madohub.ReviewView
---@return madohub.ReviewFile|nil
local function current(view)
  return view.review.files[view.file]
end

---The file's text after the turn as the review shows it now (X may have changed it); nil: none.
---@param view madohub.ReviewView
---@param i integer
---@return string|nil
local function after_text(view, i)
  local now = view.now[i]
  if now ~= nil then
    return now or nil
  end
  return text_or_nil(view.review.files[i].after)
end

---@param buf integer
---@param lines string[]
local function set_lines(buf, lines)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
end

---The list's head lines, as the Node side words them (who, which turn, when, where; the others; the
---change's size or why there is none), then a blank line.
---@param r madohub.TurnReview
---@return string[]
local function head(r)
  local lines = vim.list_slice(r.head, 1, #r.head)
  lines[#lines + 1] = ''
  return lines
end

---The list's line of a file.
---@param f madohub.ReviewFile
---@return string
local function file_line(f)
  local renamed = type(f.oldPath) == 'string' and (' ← ' .. vim.fn.strtrans(f.oldPath)) or ''
  local note = type(f.note) == 'string' and ('  (' .. f.note .. ')') or ''
  return ('%s %s%s  +%d -%d%s'):format(
    f.status:sub(1, 1):upper(),
    vim.fn.strtrans(f.path),
    renamed,
    f.added,
    f.removed,
    note
  )
end

---@param view madohub.ReviewView
---@return integer the list's line of the first file
local function first_line(view)
  return #head(view.review) + 1
end

---Draws the comments of the file shown, as virtual text on their lines.
---@param view madohub.ReviewView
local function draw_comments(view)
  for _, buf in ipairs({ view.before_buf, view.after_buf }) do
    vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  end
  local f = current(view)
  if not f then
    return
  end
  for _, c in ipairs(comments_of(view)) do
    if c.path == f.path then
      local buf = c.side == 'before' and view.before_buf or view.after_buf
      local line = math.min(c.line, vim.api.nvim_buf_line_count(buf)) - 1
      vim.api.nvim_buf_set_extmark(buf, ns, math.max(line, 0), 0, {
        virt_text = { { (c.sent and '  ✓ sent: ' or '  ✎ ') .. c.text, c.sent and 'Comment' or 'DiagnosticInfo' } },
        virt_text_pos = 'eol',
      })
    end
  end
end

---Shows file `i` in the diff windows.
---@param view madohub.ReviewView
---@param i integer
local function show_file(view, i)
  local f = view.review.files[i]
  view.file = f and i or 0
  for _, win in ipairs({ view.before_win, view.after_win }) do
    vim.api.nvim_win_call(win, function()
      vim.cmd('diffoff')
    end)
  end
  if not f then
    set_lines(view.before_buf, {})
    set_lines(view.after_buf, {})
    vim.wo[view.before_win].winbar = ''
    vim.wo[view.after_win].winbar = ''
    return
  end
  local before, after = text_or_nil(f.before), after_text(view, i)
  local shown = f.before ~= nil and f.after ~= nil
  local title = vim.fn.strtrans(f.path):gsub('%%', '%%%%')
  -- Their names are what the tab line and the status lines show: which file, before or after (unique to this tab).
  for side, buf in pairs({ before = view.before_buf, after = view.after_buf }) do
    local name = ('mado-review://%d/%s/%s'):format(view.tab, side, vim.fn.strtrans(f.path))
    pcall(vim.api.nvim_buf_set_name, buf, name)
  end
  vim.wo[view.before_win].winbar = 'before · ' .. title
  vim.wo[view.after_win].winbar = ('after · %s%s'):format(title, view.now[i] ~= nil and ' (undone in part)' or '')
  if not shown then
    -- No texts (binary, large, a submodule): its diff as git gives it, or its word.
    set_lines(view.before_buf, {})
    set_lines(view.after_buf, f.diff ~= '' and lines_of(f.diff) or { (f.note or 'no text') })
  else
    set_lines(view.before_buf, before and lines_of(before) or {})
    set_lines(view.after_buf, after and lines_of(after) or {})
    local ft = vim.filetype.match({ filename = f.path }) or ''
    vim.bo[view.before_buf].syntax = ft
    vim.bo[view.after_buf].syntax = ft
    for _, win in ipairs({ view.before_win, view.after_win }) do
      vim.api.nvim_win_call(win, function()
        vim.cmd('diffthis')
      end)
    end
  end
  draw_comments(view)
  if vim.api.nvim_win_is_valid(view.list_win) then
    vim.api.nvim_win_set_cursor(view.list_win, { first_line(view) + i - 1, 0 })
  end
end

---Draws the list of files.
---@param view madohub.ReviewView
local function draw_list(view)
  local lines = head(view.review)
  for _, f in ipairs(view.review.files) do
    lines[#lines + 1] = file_line(f)
  end
  set_lines(view.list_buf, lines)
  -- Its name says whose turn it lists (unique: a second review of it is another tab).
  pcall(
    vim.api.nvim_buf_set_name,
    view.list_buf,
    ('mado-review://%d/turn-%d of %s'):format(view.tab, view.review.turn, vim.fn.strtrans(view.review.name))
  )
  vim.wo[view.list_win].winbar = ('Review · %s · ? keys'):format(vim.fn.strtrans(view.review.name):gsub('%%', '%%%%'))
end

---The view of the current tab, or nil.
---@return madohub.ReviewView|nil
local function view_here()
  return views[vim.api.nvim_get_current_tabpage()]
end

---@type table<string, fun(view: madohub.ReviewView)>
local run = {}

---@param view madohub.ReviewView
---@param step integer
local function step_file(view, step)
  local n = #view.review.files
  if n == 0 then
    return util.notify('no file changed in this turn')
  end
  local i = view.file + step
  if i < 1 then
    i = n
  elseif i > n then
    i = 1
  end
  show_file(view, i)
end

function run.next_file(view)
  step_file(view, 1)
end

function run.prev_file(view)
  step_file(view, -1)
end

---@param view madohub.ReviewView
---@param turn integer
local function go_turn(view, turn)
  if turn < view.review.first or turn > view.review.last then
    return util.notify(('no turn %d is kept (turns %d–%d are)'):format(turn, view.review.first, view.review.last))
  end
  M.load(view.id, turn, function(r)
    if vim.api.nvim_tabpage_is_valid(view.tab) then
      view.review, view.now = r, {}
      draw_list(view)
      show_file(view, #r.files > 0 and 1 or 0)
    end
  end)
end

function run.next_turn(view)
  go_turn(view, view.review.turn + 1)
end

function run.prev_turn(view)
  go_turn(view, view.review.turn - 1)
end

function run.open(view)
  local win = vim.api.nvim_get_current_win()
  if win == view.list_win then
    local i = vim.api.nvim_win_get_cursor(win)[1] - first_line(view) + 1
    if view.review.files[i] then
      show_file(view, i)
      vim.api.nvim_set_current_win(view.after_win)
    end
  else
    vim.api.nvim_set_current_win(view.list_win)
  end
end

---The side and line under the cursor in a diff window, or nil (in the list).
---@param view madohub.ReviewView
---@return "before"|"after"|nil, integer
local function place(view)
  local win = vim.api.nvim_get_current_win()
  local line = vim.api.nvim_win_get_cursor(win)[1]
  if win == view.before_win then
    return 'before', line
  elseif win == view.after_win then
    return 'after', line
  end
  return nil, line
end

function run.comment(view)
  local f = current(view)
  local side, line = place(view)
  if not f or not side then
    return util.notify('c comments on a line of a file’s diff (]f shows the next file)', vim.log.levels.WARN)
  end
  local buf = side == 'before' and view.before_buf or view.after_buf
  local line_text = vim.api.nvim_buf_get_lines(buf, line - 1, line, false)[1] or ''
  vim.ui.input({ prompt = ('Comment on %s:%d: '):format(vim.fn.strtrans(f.path), line) }, function(text)
    if not text or vim.trim(text) == '' then
      return
    end
    local list = comments_of(view)
    list[#list + 1] = { path = f.path, line = line, side = side, line_text = line_text, text = text, sent = false }
    draw_comments(view)
  end)
end

---The reply that carries the comments: each `path:line`, the line's text, the comment.
---@param view madohub.ReviewView
---@param list madohub.ReviewComment[]
---@return string
function M.reply_text(view, list)
  local parts = {
    ('Review of your turn %d in %s — %d comment(s):'):format(view.review.turn, view.review.folder, #list),
  }
  for _, c in ipairs(list) do
    parts[#parts + 1] = ''
    parts[#parts + 1] = ('%s:%d%s'):format(c.path, c.line, c.side == 'before' and ' (as it was before the turn)' or '')
    parts[#parts + 1] = '  > ' .. c.line_text
    parts[#parts + 1] = '  ' .. c.text
  end
  return table.concat(parts, '\n')
end

function run.send(view)
  local unsent = vim.tbl_filter(function(c)
    return not c.sent
  end, comments_of(view))
  if #unsent == 0 then
    return util.notify('no comment to send (c on a line adds one)')
  end
  local e = require('madohub.fleet').find(view.id)
  if not e then
    return util.notify('that agent is gone: the comments stay here', vim.log.levels.WARN)
  end
  local op, args = require('madohub.reply').message(e, M.reply_text(view, unsent))
  if not op then
    return util.notify(('%s takes no reply from here'):format(e.name), vim.log.levels.WARN)
  end
  -- Marked at once: a second S while this one is on its way sends nothing twice.
  for _, c in ipairs(unsent) do
    c.sent = true
  end
  draw_comments(view)
  require('madohub.node').call(op, args, function(r, err)
    if err then
      for _, c in ipairs(unsent) do
        c.sent = false
      end
      draw_comments(view)
      return util.notify(('review: %s'):format(err), vim.log.levels.ERROR)
    end
    local pending = require('madohub.pending')[type(r) == 'table' and r.pending or ''] or ''
    util.notify(
      ('sent %d comment(s) to %s%s'):format(
        #unsent,
        e.name,
        pending == '' and '' or (' (' .. pending .. ', sent when it may)')
      )
    )
  end)
end

function run.undo(view)
  local f = current(view)
  local side, line = place(view)
  if not f or side ~= 'after' then
    return util.notify('X undoes the hunk under the cursor in the "after" window', vim.log.levels.WARN)
  end
  if f.before == nil or f.after == nil then
    return util.notify(
      ('X undoes a hunk of text: %s is %s'):format(vim.fn.strtrans(f.path), f.note or 'not shown'),
      vim.log.levels.WARN
    )
  end
  local i = view.file
  local expected = after_text(view, i)
  local nil_or = function(v)
    return v == nil and vim.NIL or v
  end
  require('madohub.node').call('review_undo', {
    id = view.id,
    path = f.path,
    line = line,
    before = nil_or(text_or_nil(f.before)),
    expected = nil_or(expected),
  }, function(r, err)
    if err then
      return util.notify(('X: %s'):format(err), vim.log.levels.ERROR)
    end
    view.now[i] = type(r) == 'table' and type(r.text) == 'string' and r.text or false
    if vim.api.nvim_tabpage_is_valid(view.tab) and view.file == i then
      show_file(view, i)
    end
    -- A buffer of that file reads it again.
    vim.cmd('silent! checktime')
    util.notify(('undone: %s at line %d'):format(vim.fn.strtrans(f.path), line))
  end)
end

function run.help(_)
  local keys = require('madohub.config').options.review.keys
  local by = {}
  for key, action in pairs(keys) do
    if action then
      by[action] = by[action] or {}
      table.insert(by[action], key)
    end
  end
  local lines = { 'MadoReview keys (]c [c: the next and previous hunk)' }
  for _, action in ipairs(M.order) do
    if by[action] then
      table.sort(by[action])
      lines[#lines + 1] = ('  %-12s %s'):format(table.concat(by[action], ' '), M.actions[action])
    end
  end
  vim.api.nvim_echo({ { table.concat(lines, '\n') } }, false, {})
end

function run.close(view)
  views[view.tab] = nil
  if #vim.api.nvim_list_tabpages() > 1 and vim.api.nvim_tabpage_is_valid(view.tab) then
    vim.cmd('tabclose ' .. vim.api.nvim_tabpage_get_number(view.tab))
  else
    for _, buf in ipairs({ view.list_buf, view.before_buf, view.after_buf }) do
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
end

---Runs the action named of the current tab's view.
---@param action string
function M.act(action)
  local view = view_here()
  if view and run[action] then
    run[action](view)
  end
end

---A scratch buffer of the review (gone with its tab), read-only.
---@return integer
local function scratch()
  local buf = require('madohub.picker.layout').scratch('madohub-review')
  vim.bo[buf].modifiable = false
  return buf
end

---@param view madohub.ReviewView
local function map_keys(view)
  local keys = require('madohub.config').options.review.keys
  for _, buf in ipairs({ view.list_buf, view.before_buf, view.after_buf }) do
    for key, action in pairs(keys) do
      if action then
        vim.keymap.set('n', key, function()
          M.act(action)
        end, { buffer = buf, nowait = true, desc = 'MadoReview: ' .. M.actions[action] })
      end
    end
  end
  vim.api.nvim_create_autocmd('CursorMoved', {
    buffer = view.list_buf,
    callback = function()
      local i = vim.api.nvim_win_get_cursor(0)[1] - first_line(view) + 1
      if view.review.files[i] and i ~= view.file then
        show_file(view, i)
      end
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = view.list_buf,
    once = true,
    callback = function()
      views[view.tab] = nil
    end,
  })
  -- One of its windows closed by hand (:q): the review is three windows or none.
  local au
  au = vim.api.nvim_create_autocmd('WinClosed', {
    callback = function(ev)
      local closed = tonumber(ev.match)
      if views[view.tab] ~= view then
        return vim.api.nvim_del_autocmd(au)
      end
      if closed == view.list_win or closed == view.before_win or closed == view.after_win then
        vim.api.nvim_del_autocmd(au)
        vim.schedule(function()
          run.close(view)
        end)
      end
    end,
  })
end

---Asks the Node side for entry `id`'s turn (its last finished one when `turn` is nil).
---@param id string
---@param turn integer|nil
---@param done fun(r: madohub.TurnReview)
function M.load(id, turn, done)
  require('madohub').boot()
  local node = require('madohub.node')
  node.ensure()
  node.call('review', { id = id, turn = turn }, function(r, err)
    if err or type(r) ~= 'table' then
      return util.notify(('MadoReview: %s'):format(err or 'no answer'), vim.log.levels.ERROR)
    end
    done(r)
  end)
end

---Shows a turn in a new tab.
---@param id string
---@param r madohub.TurnReview
function M.show(id, r)
  vim.cmd('tabnew')
  local tab = vim.api.nvim_get_current_tabpage()
  local list_win = vim.api.nvim_get_current_win()
  local placeholder = vim.api.nvim_get_current_buf()
  ---@type madohub.ReviewView
  local view = {
    id = id,
    review = r,
    tab = tab,
    list_buf = scratch(),
    before_buf = scratch(),
    after_buf = scratch(),
    list_win = list_win,
    before_win = 0,
    after_win = 0,
    file = 0,
    now = {},
  }
  vim.api.nvim_win_set_buf(list_win, view.list_buf)
  pcall(vim.api.nvim_buf_delete, placeholder, { force = true })
  vim.cmd('rightbelow vsplit')
  view.before_win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(view.before_win, view.before_buf)
  vim.cmd('rightbelow vsplit')
  view.after_win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(view.after_win, view.after_buf)
  vim.api.nvim_win_set_width(list_win, math.min(50, math.floor(vim.o.columns / 4)))
  vim.wo[list_win].cursorline = true
  vim.wo[list_win].wrap = true
  vim.wo[list_win].linebreak = true
  views[tab] = view
  map_keys(view)
  draw_list(view)
  show_file(view, #r.files > 0 and 1 or 0)
  vim.api.nvim_set_current_win(#r.files > 0 and view.after_win or list_win)
end

---:MadoReview [ID|NAME] [N]
---@param args string[]
function M.command(args)
  -- The words that name the agent (a name may hold spaces: `claude proj`), then a turn's number.
  local words = vim.list_slice(args, 1, #args)
  local turn
  if #words > 0 and words[#words]:match('^%d+$') and not require('madohub.fleet').named(table.concat(words, ' ')) then
    turn = tonumber(table.remove(words))
  end
  if turn and turn < 1 then
    return util.notify('MadoReview: a turn is a number from 1', vim.log.levels.ERROR)
  end
  local name = table.concat(words, ' ')
  local e, why = require('madohub.fleet').named(name)
  if not e then
    return util.notify(
      'MadoReview: ' .. (name ~= '' and why or 'no agent in this window: name one (:MadoReview {name} [turn])'),
      vim.log.levels.ERROR
    )
  end
  M.open(e.id, turn)
end

---Opens the review of entry `id`'s turn (its last finished one when `turn` is nil).
---@param id string
---@param turn integer|nil
function M.open(id, turn)
  M.load(id, turn, function(r)
    M.show(id, r)
    -- Its finished turn is seen now: its row no longer calls for a look.
    local e = require('madohub.fleet').find(id)
    if e then
      require('madohub.attention').seen[id] = e.since
    end
  end)
end

return M
