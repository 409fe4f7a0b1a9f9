// The fleet model: entries from terminals and jobs, and the changes pushed to Lua.
import { describe, expect, it } from 'vitest';
import { jobEntry, agentStateOfJob, terminalEntry } from '../../../src/fleet/entry.js';
import { Fleet } from '../../../src/fleet/fleet.js';
import { sessionEntry } from '../../../src/fleet/sessions-watch.js';
import { claude, claudeSession } from '../../../src/agents/claude.js';
import type { ListedJob } from '../../../src/jobs/protocol/replies.js';
import { blankJob } from '../../../src/jobs/store.js';

const job = (patch: Partial<ListedJob> = {}): ListedJob => ({
  ...blankJob('3fa2c1d0', 1000),
  alive: true,
  name: 'parser fix',
  cwd: '/p',
  ...patch,
});

describe('fleet entries', () => {
  it("a job's status and tempo in the agents' words", () => {
    expect(agentStateOfJob({ status: 'running', tempo: 'active' })).toBe('working');
    expect(agentStateOfJob({ status: 'running', tempo: 'blocked' })).toBe('waiting');
    expect(agentStateOfJob({ status: 'running', tempo: 'idle' })).toBe('idle');
    expect(agentStateOfJob({ status: 'done', tempo: 'idle' })).toBe('stopped');
    // Its agent exited 0: the job ended (the picker's d removes it; nothing says a turn finished).
    expect(agentStateOfJob({ status: 'done', tempo: 'idle', alive: false })).toBe('exited');
    expect(agentStateOfJob({ status: 'done', tempo: 'idle', alive: true })).toBe('stopped');
    expect(agentStateOfJob({ status: 'errored', tempo: 'idle' })).toBe('failed');
    expect(agentStateOfJob({ status: 'stopped', tempo: 'idle' })).toBe('exited');
    expect(agentStateOfJob({ status: 'killed', tempo: 'idle' })).toBe('exited');
  });

  it('a job waiting on a question carries it; a terminal is named by its buffer', () => {
    const waiting = jobEntry(
      job({
        status: 'running',
        tempo: 'blocked',
        agent: 'claude',
        needs: 'Do you want to proceed?',
        block: { questions: [{ text: 'Do you want to proceed?', options: ['Yes', 'No'] }] },
      }),
    );
    expect(waiting).toMatchObject({
      id: 'job:3fa2c1d0',
      kind: 'job',
      state: 'waiting',
      where: 'job',
      needs: { question: 'Do you want to proceed?', options: ['Yes', 'No'] },
    });
    expect(jobEntry(job({ tempo: 'blocked', needs: 'a prompt' }))).toMatchObject({
      needs: null,
      detail: 'needs a prompt',
    });
    const t = terminalEntry({
      buf: 7,
      agent: 'codex',
      state: 'working',
      source: 'pty-scrape',
      confirmed: false,
      detail: 'Working',
      since: 5,
      exit: null,
      interrupted: false,
    });
    expect(t).toMatchObject({
      id: 'term:7',
      kind: 'terminal',
      where: 'buffer 7',
      buf: 7,
      short: '',
      state: 'working',
      since: 5,
      confirmed: false,
    });
    // Structure, not words: the buffer a job is attached in, its id; a terminal's exit status; an interrupt.
    expect(jobEntry(job(), 12)).toMatchObject({ where: 'job in buffer 12', buf: 12, short: '3fa2c1d0', pid: null });
    expect(jobEntry(job({ status: 'errored', detail: 'interrupted' }))).toMatchObject({
      state: 'failed',
      interrupted: true,
    });
    // Stopped or killed at your word: your own exit. One whose agent left by itself is not.
    expect(jobEntry(job({ status: 'stopped' }))).toMatchObject({ state: 'exited', interrupted: true });
    expect(jobEntry(job({ status: 'killed' }))).toMatchObject({ state: 'exited', interrupted: true });
    expect(jobEntry({ ...job({ status: 'done' }), alive: false })).toMatchObject({
      state: 'exited',
      interrupted: false,
    });
    expect(
      terminalEntry({
        buf: 3,
        agent: 'shell',
        state: 'exited',
        source: 'terminal',
        confirmed: false,
        detail: 'exit 2',
        since: 1,
        exit: 2,
        interrupted: false,
      }),
    ).toMatchObject({ exit: 2, buf: 3 });
    expect(waiting.confirmed).toBe(false);
  });
});

describe('the fleet', () => {
  it('answers what changed, and nothing when nothing did', () => {
    const fleet = new Fleet();
    const a = jobEntry(job());
    expect(fleet.set(a)).toEqual({ put: [a], removed: [] });
    expect(fleet.set({ ...a })).toBeNull();
    const t = terminalEntry({
      buf: 1,
      agent: 'claude',
      state: 'idle',
      source: 'pty-scrape',
      confirmed: false,
      detail: '',
      since: 1,
      exit: null,
      interrupted: false,
    });
    fleet.set(t);
    // The jobs folder read again: one job gone, one new; the terminal stays.
    const b = jobEntry(job({ short: 'aaaaaaa1' }));
    expect(fleet.replaceKind('job', [b])).toEqual({ put: [b], removed: ['job:3fa2c1d0'] });
    expect(fleet.replaceKind('job', [b])).toBeNull();
    expect(
      fleet
        .all()
        .map((e) => e.id)
        .sort(),
    ).toEqual(['job:aaaaaaa1', 'term:1']);
    expect(fleet.remove('term:1')).toEqual({ put: [], removed: ['term:1'] });
    expect(fleet.remove('term:1')).toBeNull();
  });
});

describe('sessions elsewhere', () => {
  it("keep a bounded folder and detail from a session file (anyone's to write)", () => {
    const e = sessionEntry(
      claude,
      {
        pid: 42,
        sessionId: 's'.repeat(500),
        cwd: `/${'d'.repeat(100_000)}`,
        signal: { state: 'waiting', source: 'session-file', detail: 'x'.repeat(100_000) },
      },
      1,
    );
    expect(e.cwd.length).toBe(1024);
    expect(e.detail.length).toBe(120);
    expect(e.id.length).toBeLessThanOrEqual('claude:'.length + 128);
    expect(e).toMatchObject({
      kind: 'session',
      state: 'waiting',
      where: 'pid 42',
      pid: 42,
      since: 1,
      attach: [],
      confirmed: true,
    });
  });

  it("a background session (claude --bg) is attached by its id; its name is the session's", () => {
    const file = {
      pid: 7,
      sessionId: '9f20f47d-cc3d-4e6d-87b3-695a2d35486a',
      cwd: '/p',
      kind: 'bg',
      jobId: '387c1190',
      name: 'fix-readme',
      status: 'busy',
      updatedAt: 5,
    };
    const bg = claudeSession(file)!;
    expect(sessionEntry(claude, bg, 1)).toMatchObject({
      name: 'fix-readme',
      where: 'background session 387c1190, pid 7',
      attach: ['claude', 'attach', '387c1190'],
      state: 'working',
    });
    // An id that is none (a path, an option) is not kept; an interactive session has none.
    expect(sessionEntry(claude, claudeSession({ ...file, jobId: '--help' })!, 1).attach).toEqual([]);
    expect(sessionEntry(claude, claudeSession({ ...file, kind: 'interactive' })!, 1)).toMatchObject({
      attach: [],
      where: 'pid 7',
    });
  });
});
