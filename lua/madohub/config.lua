---An agent's id, as the Node side names it (`claude`, `codex`, …: the list comes from Node).
---@alias madohub.Agent string

---@class madohub.WatchConfig
---@field interval integer Milliseconds: a terminal's snapshot per this many, two back to back at most (16-50).
---@field hidden_interval integer Milliseconds: the same for a terminal no window of the current tab page shows.

---@class madohub.WinbarConfig
---@field enabled boolean Show the label in the winbar of terminal windows.
---@field time boolean Show how long the terminal has been in its state.
---@field detail boolean Show the line that decided the state after the label.
---@field spinner string[] Frames of the Working animation.
---@field frame_ms integer Milliseconds between two frames.
---@field confirmed string Mark after the state word when the agent's own records confirm it ('' for none).

---@class madohub.NotifyDesktopConfig
---@field enabled boolean Desktop notifications (notify-send, osascript, terminal-notifier).
---Your notifier, its program first (`{title}`, `{body}`, `{urgency}` stand for the notice's).
---@field command string[]|nil Your notifier; nil finds the system's.

---@class madohub.NotifyTerminalConfig
---The notification written to the terminal Neovim runs in ('auto': by what the terminal is).
---@field osc 'auto'|9|777|99|false
---@field bell boolean Ring the terminal's bell.
---@field title boolean The title says how many agents need you.

---@class madohub.NotifyQuiet
---@field from string `HH:MM`, local time.
---@field to string `HH:MM` (before `from`: the period spans midnight).

---@class madohub.NotifyConfig
---@field enabled boolean Notify when an agent out of sight needs attention.
---@field states table<madohub.StateName, boolean> Which states notify.
---@field burst_ms integer Notices within this many ms of a burst's first are told as one summary.
---@field quiet madohub.NotifyQuiet|nil Nothing outside Neovim in this period.
---@field desktop madohub.NotifyDesktopConfig
---@field terminal madohub.NotifyTerminalConfig

---@class madohub.PickerConfig
---@field width number Of the editor's columns: a fraction (0-1) or a count.
---@field height number Of the editor's lines: a fraction (0-1) or a count.
---@field border string|string[]|nil The float's border; nil follows 'winborder' (Neovim 0.11+), else `rounded`.
---@field open_on_start boolean Open :MadoAgents when Neovim starts with no file arguments.
---The agent of a job the input line starts without `@agent`; nil: the default agent (Claude Code).
---@field default_agent madohub.Agent|nil
---@field keys table<string, string|false> Keys of the list: key → action (false: not mapped). |madohub-picker-keys|

---@class madohub.RoutesConfig
---Your named templates (`{last}`, `{diff}`, `{screen}`, `{name}`, `{agent}`, `{cwd}`, `{state}`, `{hop}`).
---@field templates table<string, string>
---@field max_bytes integer A larger payload goes to a file; the target gets its path and first lines.
---@field busy_ms integer A target busy this long gets no payload (a message says so).

---@class madohub.ReviewConfig
---@field max_mb integer The review's records (every agent's, jobs' too) are kept under this many MiB.
---@field keys table<string, string|false> Keys of :MadoReview: key → action (false: not mapped). |madohub-review-keys|

---@class madohub.UsageConfig
---@field context_pct integer A row says how full its agent's context is from this per cent on. |madohub-usage|

---@class madohub.Budget
---@field turn_usd? number A turn that costs this many US dollars is over budget (news, once, and its row says).
---@field session_usd? number A session that costs this much.
---@field day_usd? number The agents' day, all together (the picker's header says it).
---@field turn_tokens? integer The same in tokens (every kind: input, output, cache reads and writes).
---@field session_tokens? integer
---@field day_tokens? integer

---@class madohub.Price
---@field input number US dollars per million input tokens.
---@field output number Per million output tokens.
---@field cacheRead? number Per million tokens read from the cache (0 when left out).
---@field cacheWrite? number Per million tokens written to the cache (0 when left out).
---@field context? integer Its context window, in tokens.

---@class madohub.Config
---@field node string The Node executable (name on PATH or a path). Node >= 20.
---@field log string|nil A file for the Node process's log; nil logs nothing.
---@field log_level "info"|"debug"
---@field watch madohub.WatchConfig
---@field winbar madohub.WinbarConfig
---@field highlight { enabled: boolean } Colour the window (separator) of a terminal by its state.
---@field notify madohub.NotifyConfig
---@field review madohub.ReviewConfig
---@field usage madohub.UsageConfig
---Prices by model, over the agents' own and prices.json's (|madohub-usage|):
---`{ ['my-model'] = { input = 3, output = 15 } }`.
---@field prices table<string, madohub.Price>
---@field budget madohub.Budget Limits of what the agents spend; none by default (|madohub-usage|).
---@field labels table<madohub.Agent, string> Your names for agents (the agents' own display names come from Node).
---@field words table<string, string> Display words of the states (and of a Failed turn's `interrupted`, `error`).
---@field picker madohub.PickerConfig
---@field routes madohub.RoutesConfig
---@field hosts table<string, madohub.HostConfig> Remote hosts by name, beside hosts.json's (|madohub-hosts|).

---@class madohub.HostConfig
---@field command string[] A command that gives a shell there (`{ 'ssh', '-T', 'box' }`).
---@field mado? string How `mado` is run there (default `mado`).
---@field cwd? string The folder there its verbs run in.
---@field connect_ms? integer How long its link may take to come up.

local M = {}

local states = require('madohub.states')

---Each state's word, and the words of a Failed turn's detail.
---@return table<string, string>
local function default_words()
  local words = { interrupted = 'Interrupted', error = 'Error' }
  for _, s in ipairs(states.list) do
    words[s.name] = s.word
  end
  return words
end

---The states whose changes are told by default.
---@return table<madohub.StateName, boolean>
local function default_told()
  local told = {}
  for _, s in ipairs(states.list) do
    if s.told then
      told[s.name] = true
    end
  end
  return told
end

---@type madohub.Config
M.defaults = {
  node = 'node',
  log = nil,
  log_level = 'info',
  watch = { interval = 30, hidden_interval = 150 },
  winbar = {
    enabled = true,
    time = true,
    detail = false,
    spinner = { '⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏' },
    frame_ms = 120,
    confirmed = '✓',
  },
  highlight = { enabled = true },
  notify = {
    enabled = true,
    states = default_told(),
    burst_ms = 2000,
    quiet = nil,
    desktop = { enabled = true, command = nil },
    terminal = { osc = 'auto', bell = false, title = false },
  },
  labels = {},
  hosts = {},
  words = default_words(),
  picker = {
    width = 0.8,
    height = 0.8,
    border = nil,
    open_on_start = false,
    default_agent = nil,
    keys = {
      ['j'] = 'down',
      ['<Down>'] = 'down',
      ['<C-n>'] = 'down',
      ['k'] = 'up',
      ['<Up>'] = 'up',
      ['<C-p>'] = 'up',
      ['<CR>'] = 'open',
      ['<Space>'] = 'peek',
      ['r'] = 'reply',
      ['1'] = 'choose',
      ['2'] = 'choose',
      ['3'] = 'choose',
      ['4'] = 'choose',
      ['5'] = 'choose',
      ['6'] = 'choose',
      ['7'] = 'choose',
      ['8'] = 'choose',
      ['9'] = 'choose',
      ['/'] = 'filter',
      ['<C-r>'] = 'rename',
      ['R'] = 'rename',
      ['<C-t>'] = 'pin',
      ['p'] = 'pin',
      ['x'] = 'stop',
      ['d'] = 'remove',
      ['u'] = 'seen',
      ['D'] = 'review',
      ['m'] = 'mute',
      ['n'] = 'new',
      ['i'] = 'new',
      ['<C-CR>'] = 'new_attach',
      ['<M-CR>'] = 'new_attach',
      ['gs'] = 'group_by',
      ['<Tab>'] = 'fold',
      ['<M-k>'] = 'move_up',
      ['<M-j>'] = 'move_down',
      ['?'] = 'help',
      ['q'] = 'close',
      ['<Esc>'] = 'back',
    },
  },
  routes = {
    templates = {},
    max_bytes = 32 * 1024,
    busy_ms = 10 * 60 * 1000,
  },
  usage = { context_pct = 85 },
  prices = {},
  budget = {},
  review = {
    max_mb = 1024,
    keys = {
      [']f'] = 'next_file',
      ['[f'] = 'prev_file',
      [']t'] = 'next_turn',
      ['[t'] = 'prev_turn',
      ['c'] = 'comment',
      ['S'] = 'send',
      ['X'] = 'undo',
      ['<CR>'] = 'open',
      ['?'] = 'help',
      ['q'] = 'close',
    },
  },
}

---The options in force (read-only: never mutated, so the defaults can serve as they are).
---@type madohub.Config
M.options = M.defaults

---@param path string
---@param value any
---@param expected string
---@param optional boolean|nil
local function check(path, value, expected, optional)
  if value == nil and optional then
    return
  end
  if type(value) ~= expected then
    error(('madohub.setup: %s must be a %s, got %s'):format(path, expected, type(value)), 0)
  end
end

---A key table of setup() (`picker.keys`, `review.keys`): each key maps to one of `actions`, or to false.
---@param path string
---@param keys table<string, string|false>
---@param actions table<string, string>
local function check_keys(path, keys, actions)
  for key, action in pairs(keys) do
    if action ~= false and not actions[action] then
      error(('madohub.setup: %s[%q] is no action (%s)'):format(path, key, tostring(action)), 0)
    end
  end
end

---Merges `opts` over the defaults; a wrong type is an error that names the option.
---@param opts table|nil
---@return madohub.Config
function M.merge(opts)
  check('opts', opts, 'table', true)
  -- setup() runs at startup: no copy when there is nothing to merge.
  local merged = (opts == nil or next(opts) == nil) and M.defaults or vim.tbl_deep_extend('force', M.defaults, opts)
  check('node', merged.node, 'string')
  check('log', merged.log, 'string', true)
  check('watch.interval', merged.watch.interval, 'number')
  check('watch.hidden_interval', merged.watch.hidden_interval, 'number')
  check('winbar.enabled', merged.winbar.enabled, 'boolean')
  check('winbar.time', merged.winbar.time, 'boolean')
  check('winbar.detail', merged.winbar.detail, 'boolean')
  check('winbar.spinner', merged.winbar.spinner, 'table')
  check('winbar.frame_ms', merged.winbar.frame_ms, 'number')
  check('winbar.confirmed', merged.winbar.confirmed, 'string')
  check('highlight.enabled', merged.highlight.enabled, 'boolean')
  check('notify.enabled', merged.notify.enabled, 'boolean')
  check('notify.states', merged.notify.states, 'table')
  check('notify.burst_ms', merged.notify.burst_ms, 'number')
  check('notify.quiet', merged.notify.quiet, 'table', true)
  if merged.notify.quiet then
    check('notify.quiet.from', merged.notify.quiet.from, 'string')
    check('notify.quiet.to', merged.notify.quiet.to, 'string')
  end
  check('notify.desktop.enabled', merged.notify.desktop.enabled, 'boolean')
  check('notify.desktop.command', merged.notify.desktop.command, 'table', true)
  check('notify.terminal.bell', merged.notify.terminal.bell, 'boolean')
  check('notify.terminal.title', merged.notify.terminal.title, 'boolean')
  local osc = merged.notify.terminal.osc
  if not (osc == 'auto' or osc == false or osc == 9 or osc == 777 or osc == 99) then
    error(
      ("madohub.setup: notify.terminal.osc must be 'auto', 9, 777, 99 or false, got %s"):format(vim.inspect(osc)),
      0
    )
  end
  check('picker.width', merged.picker.width, 'number')
  check('picker.height', merged.picker.height, 'number')
  check('picker.open_on_start', merged.picker.open_on_start, 'boolean')
  check('picker.default_agent', merged.picker.default_agent, 'string', true)
  check('picker.keys', merged.picker.keys, 'table')
  check('routes.templates', merged.routes.templates, 'table')
  check('routes.max_bytes', merged.routes.max_bytes, 'number')
  check('routes.busy_ms', merged.routes.busy_ms, 'number')
  check('review.keys', merged.review.keys, 'table')
  check('review.max_mb', merged.review.max_mb, 'number')
  if merged.review.max_mb < 1 or merged.review.max_mb ~= math.floor(merged.review.max_mb) then
    error(
      ('madohub.setup: review.max_mb must be a whole number of MiB (1 or more), got %s'):format(merged.review.max_mb),
      0
    )
  end
  check('usage.context_pct', merged.usage.context_pct, 'number')
  if merged.usage.context_pct < 1 or merged.usage.context_pct > 100 then
    error(
      ('madohub.setup: usage.context_pct must be a per cent (1 to 100), got %s'):format(merged.usage.context_pct),
      0
    )
  end
  -- Their entries are checked by the Node side, which says what it refused.
  check('prices', merged.prices, 'table')
  check('budget', merged.budget, 'table')
  check_keys('picker.keys', merged.picker.keys, require('madohub.picker.keys').actions)
  check_keys('review.keys', merged.review.keys, require('madohub.review').actions)
  M.options = merged
  return merged
end

return M
