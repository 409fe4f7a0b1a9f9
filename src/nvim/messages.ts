import { boundScreen } from '../detect/index.js';
import type { Screen } from '../detect/index.js';
import { isObj } from '../shared/checks.js';

/** What the Lua watcher sends for one terminal buffer (notification `screen`). */
export interface ScreenMessage extends Screen {
  buf: number;
  /** The terminal job's pid, for the process tree. */
  pid?: number;
}

/** Notification `exit`: the terminal's job ended with `status`. */
export interface ExitMessage {
  buf: number;
  status: number;
}

/** Notification `forget`: the buffer was wiped. */
export interface ForgetMessage {
  buf: number;
}

function isBuf(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

export function parseScreen(value: unknown): ScreenMessage | null {
  if (!isObj(value) || !isBuf(value.buf) || !Array.isArray(value.lines)) return null;
  const lines = value.lines.filter((l): l is string => typeof l === 'string');
  // A terminal whose program set no title has Neovim's buffer name for one (`term://~/p//42:bash`): no title.
  const title = typeof value.title === 'string' && !value.title.startsWith('term://') ? value.title : '';
  const cursor = typeof value.cursor === 'number' ? value.cursor : undefined;
  const pid = typeof value.pid === 'number' && value.pid > 0 ? value.pid : undefined;
  return { buf: value.buf, ...boundScreen({ lines, title, cursor }), pid };
}

export function parseExit(value: unknown): ExitMessage | null {
  if (!isObj(value) || !isBuf(value.buf)) return null;
  return { buf: value.buf, status: typeof value.status === 'number' ? value.status : -1 };
}

export function parseForget(value: unknown): ForgetMessage | null {
  if (!isObj(value) || !isBuf(value.buf)) return null;
  return { buf: value.buf };
}
