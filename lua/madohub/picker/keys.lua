---The picker's actions by name, each with what `?` and `:help madohub-picker-keys` say of it. The
---keys that run them are the user's (`picker.keys` in setup()).
local M = {}

---@type table<string, string>
M.actions = {
  down = 'next row',
  up = 'previous row',
  open = 'open: go to the terminal, attach the job (respawned when stopped), show another Neovim’s terminal; on a group: fold',
  peek = 'show or hide the peek pane (the live screen, the question first)',
  reply = 'write a reply in the input line; <CR> sends it',
  choose = 'answer a numbered menu with that choice (1-9)',
  filter = 'filter: words, a:agent, s:state, k:kind, h:host',
  rename = 'rename (kept in the job file for jobs)',
  pin = 'pin or unpin',
  stop = 'stop (a second time within 3 s kills a job)',
  remove = 'remove an ended job',
  seen = 'mark a finished turn seen or unseen',
  review = 'review its last turn’s change (:MadoReview)',
  mute = 'mute or unmute its notifications (:MadoMute)',
  new = 'start a job: [@agent] [-n NAME] [--worktree] what to do',
  new_attach = 'start a job and attach it at once',
  group_by = 'group by state or by folder',
  fold = 'fold or unfold the group',
  move_up = 'move the row up in its group',
  move_down = 'move the row down in its group',
  help = 'show or hide these keys',
  close = 'close the picker',
  back = 'close help, peek or filter, else the picker',
}

---The order `?` lists them in.
M.order = {
  'down',
  'up',
  'open',
  'peek',
  'reply',
  'choose',
  'filter',
  'rename',
  'pin',
  'stop',
  'remove',
  'seen',
  'review',
  'mute',
  'new',
  'new_attach',
  'group_by',
  'fold',
  'move_up',
  'move_down',
  'help',
  'close',
  'back',
}

return M
