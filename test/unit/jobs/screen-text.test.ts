import { Terminal } from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { LIVE_SCROLLBACK, liveText } from '../../../src/jobs/screen-text.js';

const written = (term: Terminal, data: string): Promise<void> => new Promise((r) => term.write(data, r));
const rows = (from: number, to: number): string => {
  let out = '';
  for (let i = from; i <= to; i++) out += `row ${i}\r\n`;
  return out;
};

describe("a live host's text", () => {
  it('is whole while its model holds every row; past LIVE_SCROLLBACK rows it says the oldest went', async () => {
    const term = new Terminal({ cols: 40, rows: 10, scrollback: LIVE_SCROLLBACK, allowProposedApi: true });
    await written(term, rows(1, 300));
    const some = liveText(term);
    expect(some.whole).toBe(true);
    expect(some.lines[0]).toBe('row 1');
    await written(term, rows(301, 2000));
    const most = liveText(term);
    expect(most.whole).toBe(false);
    expect(most.lines.length).toBeLessThanOrEqual(LIVE_SCROLLBACK + 10);
    expect(most.lines.at(-1)).toBe('row 2000');
    term.dispose();
  });
});
