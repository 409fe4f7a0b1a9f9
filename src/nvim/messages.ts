// A terminal's screen as the Lua watcher sends it (`screen`, and `explain` for :MadoExplain), once its
// guard let it through (src/nvim/from-lua.ts): bounded, and with its program's title only.
import { boundScreen } from '../detect/index.js';
import type { Screen } from '../detect/index.js';

/** What the Lua watcher sends for one terminal buffer. */
export interface ScreenMessage extends Screen {
  buf: number;
  /** The terminal job's pid, for the process tree. */
  pid?: number;
}

/** The fields of a screen message, as its guard passed them. */
export interface SentScreen {
  buf: number;
  lines: string[];
  title?: string;
  cursor?: number;
  pid?: number;
}

/** The screen of a message: bounded; Neovim's own buffer name (`term://~/p//42:bash`) is no title. */
export function screenOf(m: SentScreen): ScreenMessage {
  const title = m.title !== undefined && !m.title.startsWith('term://') ? m.title : '';
  return { buf: m.buf, ...boundScreen({ lines: m.lines, title, cursor: m.cursor }), pid: m.pid };
}
