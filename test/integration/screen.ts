// What a person sees: a UI attached to a test Neovim over RPC (nvim_ui_attach with ext_linegrid),
// its redraw events applied to a grid of cells, and keys typed as a UI types them (nvim_input).
// Floating windows, the winbar and the message area are all drawn into that one grid, so a test
// reads the screen as it is, not the Lua state behind it.
import type { NeovimClient } from 'neovim';
import { until } from '../helpers/wait.js';

/** One highlight as the UI was told it: its GUI and its cterm attributes. */
export interface HlAttrs {
  rgb: Record<string, unknown>;
  cterm: Record<string, unknown>;
}

interface Cell {
  text: string;
  hl: number;
}

const blank = (): Cell => ({ text: ' ', hl: 0 });

export class Screen {
  width: number;
  height: number;
  /** The grid as the redraw events build it; `shown` is what it was at the last `flush`. */
  private cells: Cell[][] = [];
  private shown: Cell[][] = [];
  readonly hls = new Map<number, HlAttrs>();
  private drawing = { row: 0, col: 0 };
  /** Where the cursor was at the last flush (a redraw moves it about before it ends). */
  cursor = { row: 0, col: 0 };
  /** How many `flush` events came: a redraw finished. */
  flushes = 0;
  /** The mode's name as the last `mode_change` said it (`normal`, `insert`, `cmdline_normal`…). */
  mode = '';
  private readonly onNotification: (method: string, args: unknown[]) => void;

  private constructor(
    private readonly nvim: NeovimClient,
    width: number,
    height: number,
  ) {
    this.width = width;
    this.height = height;
    this.resize(width, height);
    this.onNotification = (method, args) => {
      if (method === 'redraw') for (const batch of args as unknown[][]) this.apply(batch);
    };
    nvim.on('notification', this.onNotification);
  }

  /** Attaches a UI of `width`×`height` cells (no RGB: cterm colours, as a 256-colour terminal). */
  static async attach(nvim: NeovimClient, width = 160, height = 48, rgb = true): Promise<Screen> {
    const screen = new Screen(nvim, width, height);
    await nvim.uiAttach(width, height, { ext_linegrid: true, rgb });
    await screen.waitFor(() => screen.flushes > 0, 5000, 'the first redraw');
    return screen;
  }

  async detach(): Promise<void> {
    this.nvim.removeListener('notification', this.onNotification);
    try {
      await this.nvim.uiDetach();
    } catch {
      // Neovim may be gone.
    }
  }

  private resize(width: number, height: number): void {
    this.width = width;
    this.height = height;
    this.cells = Array.from({ length: height }, () => Array.from({ length: width }, blank));
  }

  private apply(batch: unknown[]): void {
    const [name, ...calls] = batch as [string, ...unknown[][]];
    for (const a of calls) {
      switch (name) {
        case 'grid_resize':
          this.resize(a[1] as number, a[2] as number);
          break;
        case 'grid_clear':
          for (const row of this.cells) for (let i = 0; i < row.length; i++) row[i] = blank();
          break;
        case 'grid_cursor_goto':
          this.drawing = { row: a[1] as number, col: a[2] as number };
          break;
        case 'hl_attr_define':
          this.hls.set(a[0] as number, {
            rgb: a[1] as Record<string, unknown>,
            cterm: a[2] as Record<string, unknown>,
          });
          break;
        case 'grid_line':
          this.line(a[1] as number, a[2] as number, a[3] as unknown[][]);
          break;
        case 'mode_change':
          this.mode = a[0] as string;
          break;
        case 'grid_scroll':
          this.scroll(a[1] as number, a[2] as number, a[3] as number, a[4] as number, a[5] as number);
          break;
        case 'flush':
          // What a person sees: the screen once a redraw has ended, not halfway through it.
          this.shown = this.cells.map((row) => row.slice());
          this.cursor = { ...this.drawing };
          this.flushes++;
          break;
        default:
          break;
      }
    }
  }

  private line(row: number, col: number, cells: unknown[][]): void {
    const line = this.cells[row];
    if (!line) return;
    let hl = 0;
    for (const c of cells) {
      const text = c[0] as string;
      if (c.length > 1) hl = c[1] as number;
      const times = c.length > 2 ? (c[2] as number) : 1;
      for (let i = 0; i < times && col < this.width; i++) line[col++] = { text, hl };
    }
  }

  private scroll(top: number, bot: number, left: number, right: number, rows: number): void {
    const copy = (from: number, to: number): void => {
      const src = this.cells[from];
      const dst = this.cells[to];
      if (!src || !dst) return;
      for (let c = left; c < right; c++) dst[c] = src[c] ?? blank();
    };
    if (rows > 0) for (let r = top; r < bot - rows; r++) copy(r + rows, r);
    else for (let r = bot - 1; r >= top - rows; r--) copy(r + rows, r);
  }

  /** The screen's rows as text, trailing blanks cut. */
  lines(): string[] {
    return this.shown.map((row) =>
      row
        .map((c) => c.text)
        .join('')
        .replace(/\s+$/, ''),
    );
  }

  text(): string {
    return this.lines().join('\n');
  }

  /** The highlight of the cell at (row, col). */
  hlAt(row: number, col: number): HlAttrs | undefined {
    const id = this.shown[row]?.[col]?.hl ?? 0;
    return this.hls.get(id);
  }

  /** The row (0-based) of the first line holding `text`, or -1. */
  rowOf(text: string): number {
    return this.lines().findIndex((l) => l.includes(text));
  }

  /** The screen row the cursor is on, as text. */
  cursorLine(): string {
    return this.lines()[this.cursor.row] ?? '';
  }

  /**
   * In the picker's list: types `j` (or `k`, toward it) until the cursor's row shows `text`, each key
   * once the one before was taken (the cursor moved), so that no key is still on its way when the row
   * is found; only a row of the list is gone to (not a message that names it), waited for while none
   * shows. Fails with the screen if it never does.
   */
  async goTo(text: string | RegExp): Promise<void> {
    // In the list: while an input line has the cursor, its own text (a name being typed) is no row.
    await this.waitFor(() => this.mode === 'normal', 5000, 'Normal mode in the list');
    const has = (l: string): boolean => (typeof text === 'string' ? l.includes(text) : text.test(l));
    /** The row of the list holding `text` nearest the cursor, or -1. */
    const listRow = (): number => {
      const lines = this.lines();
      const top = lines.findIndex((l) => l.includes('Agents · '));
      const bottom = lines.findIndex((l, i) => i > top && l.includes('? keys'));
      let best = -1;
      for (let i = top + 1; top >= 0 && i < bottom; i++)
        if (has(lines[i] ?? '') && (best < 0 || Math.abs(i - this.cursor.row) < Math.abs(best - this.cursor.row)))
          best = i;
      return best;
    };
    for (let i = 0; i < 30 && !has(this.cursorLine()); i++) {
      await this.waitFor(() => listRow() >= 0, 5000, `a row ${String(text)} in the list`);
      // The list drawn again while it was waited for may show the row under the cursor.
      if (has(this.cursorLine())) break;
      const before = this.cursor.row;
      await this.type(listRow() < before ? 'k' : 'j');
      await this.waitFor(() => this.cursor.row !== before, 5000, 'the cursor to move');
    }
    if (!has(this.cursorLine()))
      throw new Error(`no row ${String(text)} under the cursor; the screen:\n${this.text()}`);
  }

  /** Waits, letting Neovim run, until `pred` holds of the screen; throws with the screen if it never does. */
  async waitFor(pred: (s: Screen) => boolean, timeoutMs = 5000, what = 'the screen'): Promise<void> {
    if (await until(() => pred(this), timeoutMs)) return;
    throw new Error(
      `timed out waiting for ${what}; the cursor at ${this.cursor.row}:${this.cursor.col}; the screen:\n${this.text()}`,
    );
  }

  /** Waits until the screen shows `text`. */
  async waitForText(text: string | RegExp, timeoutMs = 5000): Promise<void> {
    await this.waitFor(
      (s) => (typeof text === 'string' ? s.text().includes(text) : text.test(s.text())),
      timeoutMs,
      String(text),
    );
  }

  /** Waits until the screen no longer shows `text`. */
  async waitForNoText(text: string | RegExp, timeoutMs = 5000): Promise<void> {
    await this.waitFor(
      (s) => !(typeof text === 'string' ? s.text().includes(text) : text.test(s.text())),
      timeoutMs,
      `no ${String(text)}`,
    );
  }

  /**
   * Types keys as a UI does (`<CR>`, `<Esc>`… as in a mapping). Neovim reads them when it next waits
   * for a key: what they do is then seen on the screen (waitFor), not assumed.
   */
  async type(keys: string): Promise<void> {
    await this.nvim.input(keys);
  }

  /** Types keys through the real mappings with nvim_feedkeys ('mx': as typed, run before it returns). */
  async feed(keys: string): Promise<void> {
    await this.nvim.lua(`vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(..., true, false, true), 'mx', false)`, [
      keys,
    ]);
  }
}
