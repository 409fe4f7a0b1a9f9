// `mado` as a user meets it: strict arguments on every verb, --version, the table of jobs, logs as
// text (live, replayed, followed, raw), attach on the alternate screen.
import * as pty from 'node-pty';
import { readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Conn } from '../../src/jobs/protocol/client.js';
import { PROTO } from '../../src/jobs/protocol/codec.js';
import { FIX as FIXTURES, MADO, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { elapse, holds } from '../helpers/wait.js';

// Words joined by cursor moves, as Ink draws them; then a numbered count that scrolls, and an end.
const SENTENCE =
  "process.stdout.write('Hello!\\x1b[1CI\\x1b[1Cam\\x1b[1Ca\\x1b[1Cmock\\x1b[1Cmodel.\\r\\n'); setInterval(() => {}, 1000)";
const COUNT =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a program node runs
  'let n = 0; const t = setInterval(() => { process.stdout.write(`line ${++n}\\r\\n`); if (n === 150) { clearInterval(t); setTimeout(() => process.exit(0), 300); } }, 15)';
// Past what a live host's model keeps (LIVE_SCROLLBACK): 2,000 numbered lines at once, then 10 more for each line typed.
const LONG = [
  'let n = 0;',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a program node runs
  "const more = (k) => { let out = ''; for (let i = 0; i < k; i++) out += `row ${++n}\\r\\n`; process.stdout.write(out); };",
  "more(2000); process.stdin.setRawMode(true); process.stdin.on('data', (d) => { if (String(d).includes('\\r')) more(10); });",
].join(' ');
// An agent that takes no keys while it comes up (what is typed then is lost, as a real TUI drops it):
// its banner names it and tells nothing more; then it shows Gemini CLI's idle input line and says
// each line it gets.
const SLOW_START = [
  "let ready = false; let got = '';",
  "process.stdin.setRawMode(true); process.stdout.write('Gemini CLI is loading\\r\\n');",
  "setTimeout(() => { ready = true; process.stdout.write(' >   Type your message or @path/to/file\\r\\n'); }, 1500);",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a program node runs
  "process.stdin.on('data', (d) => { if (!ready) return; got += d; if (/\\r/.test(got)) { process.stdout.write(`got: ${got.trim()}\\r\\n`); got = ''; } });",
  'setInterval(() => {}, 1000);',
].join(' ');
const h = useJobsHarness({
  sentence: { command: ['node', '-e', SENTENCE], prompt: 'type' },
  count: { command: ['node', '-e', COUNT], prompt: 'type' },
  long: { command: ['node', '-e', LONG], prompt: 'type' },
  // Named after an agent: its jobs are that agent's.
  gemini: { command: ['node', '-e', SLOW_START], prompt: 'type' },
  replier: { command: ['node', path.join(FIXTURES, 'bin/replier')], prompt: 'type' },
});

describe('mado, strictly', () => {
  it.each([
    [['agents', '--jsn'], 'mado agents: unknown option --jsn (see mado --help)\n'],
    [['agents', 'extra'], "mado agents: unexpected argument 'extra' (see mado --help)\n"],
    [['jobs', '--jsn'], 'mado jobs: unknown option --jsn (see mado --help)\n'],
    [['stop', '5', '6'], "mado stop: unexpected argument '6' (see mado --help)\n"],
    [['kill'], 'mado kill: ID is needed\n'],
    [['logs', '-n', 'x', 'abc'], "mado logs: -n needs a number of lines, not 'x'\n"],
    [['rm', '--forse', 'abc'], 'mado rm: unknown option --forse (see mado --help)\n'],
    [['attach', 'a', 'b'], "mado attach: unexpected argument 'b' (see mado --help)\n"],
    [['respawn', '--now', 'a'], 'mado respawn: unknown option --now (see mado --help)\n'],
  ])('%j is a usage error', async (args, message) => {
    expect(await h.mado(args)).toMatchObject({ code: 2, stderr: message, stdout: '' });
  });

  it('--version names the version; an unknown id is an error (status 1)', async () => {
    expect(await h.mado(['--version'])).toMatchObject({ code: 0, stdout: 'mado 0.1.0\n' });
    expect(await h.mado(['stop', 'abc'])).toMatchObject({ code: 1, stderr: "mado stop: no job 'abc'\n" });
  });

  it('agents: a header, oldest first whatever changes, the folder', async () => {
    const a = shortOf((await h.mado(['--bg', '--agent', 'looper', '-n', 'first', 'x'])).stdout);
    // Made later, if only just.
    await elapse(20);
    const b = shortOf((await h.mado(['--bg', '--agent', 'looper', '-n', 'second', 'y'], undefined, {}, h.base)).stdout);
    await until(h.jobs, (j) => j.length === 2 && j.every((x) => x.alive === true));
    const rows = (await h.mado(['agents'])).stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^ID\s+STATUS\s+STATE\s+AGENT\s+AGE\s+NAME\s+FOLDER\s+USAGE\s+DETAIL$/);
    expect(rows[1]).toMatch(new RegExp(`^${a}\\s+running\\s+\\w+\\s+\\w+\\s+\\d+s\\s+first\\s+\\S+`));
    expect(rows[2]).toMatch(
      new RegExp(
        `^${b}\\s+running\\s+\\w+\\s+\\w+\\s+\\d+s\\s+second\\s+${h.base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    );
    // The job that changed last stays where it is.
    expect((await h.mado(['stop', a])).code).toBe(0);
    expect((await h.mado(['agents'])).stdout.split('\n')[1]).toMatch(new RegExp(`^${a}\\s+stopped\\s+exited`));
  });
});

describe('mado logs', () => {
  it('prints the text a person reads, -n the last lines, --raw the bytes; the same once the host is gone', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'sentence'])).stdout);
    await until(
      async () => (await h.mado(['logs', short])).stdout,
      (t) => t.includes('model.'),
    );
    const text = await h.mado(['logs', short]);
    expect(text).toMatchObject({ code: 0, stdout: 'Hello! I am a mock model.\n' });
    expect((await h.mado(['logs', '-n', '1', short])).stdout).toBe('Hello! I am a mock model.\n');
    expect((await h.mado(['logs', '--raw', short])).stdout).toContain('Hello!\x1b[1CI\x1b[1Cam');
    // mado screen: its screen as its host renders it.
    expect((await h.mado(['screen', short])).stdout).toMatch(/^Hello! I am a mock model\.\n/);
    expect((await h.mado(['kill', short])).code).toBe(0);
    expect((await h.mado(['logs', short])).stdout).toBe('Hello! I am a mock model.\n');
    // Once ended: the last lines of its output.
    expect((await h.mado(['screen', short])).stdout).toBe('Hello! I am a mock model.\n');
  });

  it('-f prints every line once, in order, and ends with the job', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'count', 'x'])).stdout);
    const r = await h.mado(['logs', '-f', short]);
    expect(r.code, r.stderr).toBe(0);
    // The typed prompt's echo (`x`, its Enter 50 ms later) may land at the head of a line.
    const numbers = r.stdout.split('\n').flatMap((l) => /^x?line (\d+)$/.exec(l)?.slice(1).map(Number) ?? []);
    expect(numbers).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
  });
});

describe('mado logs of a job that printed more than its host keeps', () => {
  /** The numbers of the `row N` lines of a text. */
  const rows = (text: string): number[] =>
    text.split('\n').flatMap((l) => /^row (\d+)$/.exec(l)?.slice(1).map(Number) ?? []);
  const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

  it('prints every line from its output log, -n the last; -f goes on from there, each line once', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'long'])).stdout);
    expect(
      rows(
        await until(
          async () => (await h.mado(['logs', short])).stdout,
          (t) => t.includes('row 2000\n'),
        ),
      ),
    ).toEqual(upTo(2000));
    expect((await h.mado(['logs', '-n', '2', short])).stdout).toBe('row 1999\nrow 2000\n');
    const follow = execFile(process.execPath, [MADO, 'logs', '-f', short], { env: h.env });
    const ended = new Promise((r) => follow.once('exit', r));
    let printed = '';
    follow.stdout!.on('data', (d: string) => (printed += d));
    try {
      await until(
        async () => printed,
        (t) => t.includes('row 2000\n'),
      );
      expect((await h.mado(['send', short, 'more'])).code).toBe(0);
      await until(
        async () => printed,
        (t) => t.includes('row 2010\n'),
      );
    } finally {
      await h.mado(['kill', short]);
    }
    await ended;
    expect(rows(printed)).toEqual(upTo(2010));
    // Its host gone: the same, from its log.
    expect(rows((await h.mado(['logs', short])).stdout)).toEqual(upTo(2010));
  });
});

/** A replier job, live, and `mado logs -f` following it: what it printed so far, and its end (heard from its start). */
async function followedReplier() {
  const short = shortOf((await h.mado(['--bg', '--agent', 'replier'])).stdout);
  await until(h.jobs, (j) => j.find((x) => x.short === short)?.alive === true);
  const follow = execFile(process.execPath, [MADO, 'logs', '-f', short], { env: h.env });
  // It ends as soon as its job's host has gone.
  const ended = new Promise((r) => follow.once('exit', r));
  let printed = '';
  follow.stdout!.on('data', (d: string) => (printed += d));
  return { short, follow, ended, out: () => printed };
}

describe('mado logs -f, live', () => {
  it('writes each turn’s new lines while they are still on the screen, each once, in order', async () => {
    const { short, ended, out } = await followedReplier();
    try {
      for (let i = 1; i <= 3; i++) {
        expect((await h.mado(['send', short, `line number ${i}`])).code).toBe(0);
        // On the screen (a 40-row terminal: nothing has scrolled away), written while the job runs.
        expect(
          await until(
            async () => out(),
            (t) => t.includes(`You said: line number ${i}`),
            8000,
          ),
        ).toContain(`You said: line number ${i}`);
      }
    } finally {
      await h.mado(['kill', short]);
    }
    await ended;
    const said = out()
      .split('\n')
      .filter((l) => l.startsWith('You said: '));
    expect(said).toEqual(['You said: line number 1', 'You said: line number 2', 'You said: line number 3']);
  });
});

describe('mado logs -f, quiet', () => {
  it("asks nothing of a quiet job's host: its host tells each change (no reading every half second)", async () => {
    const { short, follow, ended, out } = await followedReplier();
    const switches = (): number =>
      Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${follow.pid}/status`, 'utf8'))?.[1]);
    try {
      // Its first readings done (the text, then once more when it has stood still).
      await elapse(1500);
      const before = switches();
      await elapse(2000);
      // A process that asks its host every 500 ms wakes for each question and its answer (about 20 here).
      expect(switches() - before).toBeLessThan(4);
      expect((await h.mado(['send', short, 'still here'])).code).toBe(0);
      expect(
        await until(
          async () => out(),
          (t) => t.includes('You said: still here'),
          8000,
        ),
      ).toContain('You said: still here');
    } finally {
      await h.mado(['kill', short]);
    }
    await ended;
  });
});

describe('a typed task', () => {
  it('is typed once the agent’s screen says it is idle, not into the screens it draws while it comes up (blank, its banner)', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'gemini', 'fix the parser'])).stdout);
    const logs = await until(
      async () => (await h.mado(['logs', short])).stdout,
      (t) => t.includes('got: '),
      15000,
    );
    expect(logs).toContain('got: fix the parser');
    expect((await h.mado(['kill', short])).code).toBe(0);
  });
});

describe('mado attach', () => {
  it('says how to detach, draws on the alternate screen, and gives the terminal back as it was', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'looper', 'x'])).stdout);
    await until(h.jobs, (j) => j[0]?.alive === true);
    const term = pty.spawn(process.execPath, [MADO, 'attach', short], {
      cols: 90,
      rows: 30,
      env: h.env as Record<string, string>,
    });
    let seen = '';
    term.onData((d) => (seen += d));
    await until(
      async () => seen,
      (t) => t.includes('Claude Code'),
    );
    term.write('\x1d');
    expect(await new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)))).toBe(0);
    expect(seen).toContain(`[attached to ${short} · Ctrl-] detaches and leaves it running]`);
    const on = seen.indexOf('\x1b[?1049h');
    const off = seen.lastIndexOf('\x1b[?1049l');
    expect(on).toBeGreaterThanOrEqual(0);
    expect(off).toBeGreaterThan(seen.indexOf('Claude Code'));
    expect(seen.slice(off)).toContain(`[detached from ${short}; it keeps running]`);
    // The detach key is in the outer terminal's title while attached, the agent's own title kept
    // beside it (the fixture sets '✳ Claude Code' idle, a spinner's frame before it working: the
    // looper is either when attached); the title given back after.
    expect(seen.slice(0, on)).toContain(`\x1b]0;mado ${short} · Ctrl-] detaches\x07`);
    expect(seen.slice(on, off)).toMatch(new RegExp(`\x1b\\]0;\\S Claude Code · mado ${short} · Ctrl-\\] detaches\x07`));
    expect(seen.slice(on, off)).not.toMatch(/\x1b\]0;\S Claude Code\x07/);
    expect(seen.slice(0, on)).toContain('\x1b[22;0t');
    expect(seen.slice(off)).toContain('\x1b[23;0t');
  });
});

describe('mado logs just after a turn', () => {
  const hs = useJobsHarness({ replier: { command: ['node', `${FIXTURES}/bin/replier`], prompt: 'type' } });
  it('has the turn’s answer the moment the job says the turn is done, 20 turns over', async () => {
    // Each turn works until the test has seen it work (turn N ends once the file turn-N exists), whatever the load.
    const ends = path.join(hs.base, 'turn-{n}');
    const env = { MADOHUB_FIXTURE_WORK_UNTIL: ends, MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_WORK_UNTIL' };
    const short = shortOf((await hs.mado(['--bg', '--agent', 'replier'], undefined, env)).stdout);
    await until(hs.jobs, (j) => j[0]?.alive === true && j[0]?.tempo === 'idle');
    for (let i = 1; i <= 20; i++) {
      expect(await hs.mado(['send', short, 'work'])).toMatchObject({ code: 0 });
      expect((await until(hs.jobs, (j) => j[0]?.tempo === 'active', 5000))[0]?.tempo, `turn ${i} works`).toBe('active');
      writeFileSync(ends.replace('{n}', String(i)), '');
      expect(
        (await until(hs.jobs, (j) => j[0]?.status === 'done' && j[0]?.tempo === 'idle', 5000))[0]?.status,
        `turn ${i} ends`,
      ).toBe('done');
      expect((await hs.mado(['logs', short])).stdout, `turn ${i}'s answer`).toContain(`Turn ${i} is done.`);
    }
  }, 120000);
});

describe('mado send', () => {
  const hs = useJobsHarness({
    replier: { command: ['node', `${FIXTURES}/bin/replier`], prompt: 'type' },
    approver: { command: ['node', `${FIXTURES}/bin/approver`], prompt: 'type' },
    resumer: { command: ['node', `${FIXTURES}/bin/replier`], prompt: 'arg', resume: ['--resumed', '{id}'] },
  });
  it('mado --bg --resume ID PROMPT resumes the session, then types the prompt into it once it is up', async () => {
    const short = shortOf(
      (await hs.mado(['--bg', '--agent', 'resumer', '--resume', 'sess-1', 'go', 'on', 'from', 'there'])).stdout,
    );
    const logs = await until(
      async () => (await hs.mado(['logs', short])).stdout,
      (t) => t.includes('You said: go on from there'),
      10000,
    );
    expect(logs.split('You said: go on from there').length - 1).toBe(1);
    expect((await hs.jobs())[0]).toMatchObject({ resumeSessionId: 'sess-1', intent: 'go on from there' });
  });
  it('to a job showing a menu holds the text and names mado answer; mado answer N picks choice N, then the text goes, once', async () => {
    const short = shortOf((await hs.mado(['--bg', '--agent', 'approver'])).stdout);
    await until(hs.jobs, (j) => j[0]?.tempo === 'blocked');
    const held = await hs.mado(['send', short, 'use the other folder']);
    expect(held).toMatchObject({
      code: 0,
      stdout: `held for ${short}: it waits on a question; answer it (mado answer ${short} N, or in mado attach ${short}), then this is sent\n`,
    });
    expect((await until(hs.jobs, (j) => j[0]?.pendingReply === 'held-menu'))[0]).toMatchObject({
      pendingReply: 'held-menu',
    });
    // Nothing was typed into the menu: it still asks.
    expect((await hs.mado(['logs', short])).stdout).not.toContain('chose');
    expect(await hs.mado(['answer', short, '0'])).toMatchObject({
      code: 2,
      stderr: "mado answer: N is a choice from 1 to 9, not '0'\n",
    });
    const answered = await hs.mado(['answer', short, '2']);
    expect(answered).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^answered ${short}: 2\\. \\S`)),
    });
    const logs = await until(
      async () => (await hs.mado(['logs', short])).stdout,
      (t) => t.includes('got: use the other folder'),
      8000,
    );
    expect(logs.indexOf('chose 2')).toBeLessThan(logs.indexOf('got: use the other folder'));
    expect(logs.split('got: use the other folder').length - 1).toBe(1);
    // No menu now: an answer is refused with why.
    expect(await hs.mado(['answer', short, '1'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('mado answer:'),
    });
  });

  it('a reply held for a menu goes in once the menu is answered, though the input line loses an Enter that comes too soon: 20 menus, each reply once', async () => {
    // The next menu 3 s after each answer: the reply and its Enter given again (1 s) go before it,
    // with room for a loaded machine.
    const env = {
      MADOHUB_FIXTURE_ENTER_LOST_MS: '400',
      MADOHUB_FIXTURE_ASK_AGAIN_MS: '3000',
      MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_*',
    };
    const short = shortOf((await hs.mado(['--bg', '--agent', 'approver'], undefined, env)).stdout);
    for (let i = 1; i <= 20; i++) {
      await until(hs.jobs, (j) => j.find((x) => x.short === short)?.tempo === 'blocked', 10000);
      expect((await hs.mado(['send', short, `reply number ${i}`])).stdout).toMatch(/^held for /);
      expect((await hs.mado(['answer', short, '1'])).code).toBe(0);
      const logs = await until(
        async () => (await hs.mado(['logs', short])).stdout,
        (t) => t.includes(`got: reply number ${i}`),
        8000,
      );
      expect(logs.split(`got: reply number ${i}`).length - 1, logs).toBe(1);
      expect(logs.indexOf(`chose 1 (answer ${i})`)).toBeLessThan(logs.indexOf(`got: reply number ${i}`));
    }
    expect((await hs.mado(['kill', short])).code).toBe(0);
  }, 200000);

  it('pastes a reply at once while the agent waits for one, and queues one while it works until its turn ends', async () => {
    // Its turn of work lasts until the file `done` exists: until the test has queued the replies
    // behind it, whatever the machine's load (its 1.5 s once ended before the first was queued).
    const done = path.join(hs.base, 'work-done');
    const env = { MADOHUB_FIXTURE_WORK_UNTIL: done, MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_WORK_UNTIL' };
    const short = shortOf((await hs.mado(['--bg', '--agent', 'replier'], undefined, env)).stdout);
    // Up, its idle screen read.
    await until(hs.jobs, (j) => j[0]?.alive === true && j[0]?.tempo === 'idle');
    expect(await hs.mado(['send', short, 'hello', 'there'])).toMatchObject({ code: 0, stdout: `sent to ${short}\n` });
    await until(
      async () => (await hs.mado(['logs', short])).stdout,
      (t) => t.includes('You said: hello there'),
    );
    // Within half a second of the first, it waits that long (the first's answer drawn, no turn), then goes.
    expect((await hs.mado(['send', short], 'work\n')).stdout).toMatch(
      new RegExp(`^(?:sent to ${short}|queued for ${short}: sent when its turn ends)\n$`),
    );
    await until(hs.jobs, (j) => j[0]?.tempo === 'active');
    expect(await hs.mado(['send', short, 'after'])).toMatchObject({
      code: 0,
      stdout: `queued for ${short}: sent when its turn ends\n`,
    });
    // The job's row shows it waits (the job file's pendingReply), until it is sent.
    expect((await until(hs.jobs, (j) => j[0]?.pendingReply === 'queued'))[0]).toMatchObject({ pendingReply: 'queued' });
    // Another waits behind it: sent after it, in order, each once.
    expect(await hs.mado(['send', short, 'again'])).toMatchObject({
      code: 0,
      stdout: `queued for ${short}: sent when its turn ends\n`,
    });
    writeFileSync(done, '');
    const logs = await until(
      async () => (await hs.mado(['logs', short])).stdout,
      (t) => t.includes('You said: again'),
      8000,
    );
    expect(logs.indexOf('You said: work')).toBeLessThan(logs.indexOf('You said: after'));
    expect(logs.indexOf('You said: after')).toBeLessThan(logs.indexOf('You said: again'));
    expect(logs.split('You said: again').length - 1).toBe(1);
    expect((await until(hs.jobs, (j) => j[0]?.pendingReply === null))[0]).toMatchObject({ pendingReply: null });
    expect(await hs.mado(['send', 'nope', 'x'])).toMatchObject({ code: 1, stderr: "mado send: no job 'nope'\n" });
    expect(await hs.mado(['send', short], 'y'.repeat(130 * 1024))).toMatchObject({
      code: 2,
      stderr:
        'mado send: the reply is 130 KiB, and a job takes at most 120 KiB: put the text in a file and name the file in the prompt\n',
    });
    expect(await hs.mado(['send', short], '   ')).toMatchObject({
      code: 2,
      stderr: 'mado send: a reply needs some text\n',
    });
  });

  it('a reply sent while the job works is queued and goes once that turn ended, after its answer: 20 turns, each once, in order', async () => {
    // Each turn works until the test says it is done (the file exists): the reply comes while it works, whatever the machine's load.
    const done = path.join(hs.base, 'turn-done');
    const env = { MADOHUB_FIXTURE_WORK_UNTIL: done, MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_WORK_UNTIL' };
    const short = shortOf((await hs.mado(['--bg', '--agent', 'replier'], undefined, env)).stdout);
    const mine = (j: Awaited<ReturnType<typeof hs.jobs>>) => j.find((x) => x.short === short);
    await until(hs.jobs, (j) => mine(j)?.alive === true && mine(j)?.tempo === 'idle');
    for (let i = 1; i <= 20; i++) {
      rmSync(done, { force: true });
      expect((await hs.mado(['send', short, 'work'])).code).toBe(0);
      await until(hs.jobs, (j) => mine(j)?.tempo === 'active', 5000);
      expect(await hs.mado(['send', short, `reply ${i}`]), `turn ${i}`).toMatchObject({
        code: 0,
        stdout: `queued for ${short}: sent when its turn ends\n`,
      });
      expect((await hs.mado(['logs', short])).stdout, `turn ${i} at work`).not.toContain(`You said: reply ${i}\n`);
      writeFileSync(done, '');
      const logs = await until(
        async () => (await hs.mado(['logs', short])).stdout,
        (t) => t.includes(`You said: reply ${i}\n`),
        20000,
      );
      // Said with what the job showed and kept, should it not come.
      const why = async (): Promise<string> =>
        `turn ${i}: ${JSON.stringify(mine(await hs.jobs()))}\n${logs.split('\n').slice(-12).join('\n')}`;
      if (!logs.includes(`You said: reply ${i}\n`)) expect.fail(await why());
      expect(logs.split(`You said: reply ${i}\n`).length - 1, `turn ${i}`).toBe(1);
      expect(logs.indexOf(`Turn ${i} is done.`), `turn ${i}'s answer first`).toBeLessThan(
        logs.indexOf(`You said: reply ${i}\n`),
      );
      expect(logs.indexOf(`Turn ${i} is done.`)).toBeGreaterThan(
        i > 1 ? logs.indexOf(`You said: reply ${i - 1}\n`) : -1,
      );
      await until(hs.jobs, (j) => mine(j)?.pendingReply === null && mine(j)?.tempo === 'idle', 5000);
    }
    expect((await hs.mado(['kill', short])).code).toBe(0);
  }, 300000);

  it('takes its text from a pipe whose writer is still at work, as from a file (mado send and mado --bg)', async () => {
    const sh = (script: string): Promise<{ code: number; stdout: string; stderr: string }> =>
      new Promise((resolve) => {
        execFile('sh', ['-c', script], { env: hs.env, timeout: 30000 }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
    const bg = await sh(`(sleep 0.5; echo piped task words) | "${process.execPath}" "${MADO}" --bg --agent replier`);
    expect(bg.stderr).toBe('');
    const short = shortOf(bg.stdout);
    await until(
      async () => (await hs.mado(['logs', short])).stdout,
      (t) => t.includes('You said: piped task words'),
      10000,
    );
    expect((await hs.mado(['logs', short])).stdout).toContain('You said: piped task words');
    await until(hs.jobs, (j) => j[0]?.tempo === 'idle');
    const sent = await sh(`(sleep 0.5; echo hi from a pipe) | "${process.execPath}" "${MADO}" send ${short}`);
    expect(sent).toMatchObject({ code: 0, stdout: `sent to ${short}\n` });
    await until(
      async () => (await hs.mado(['logs', short])).stdout,
      (t) => t.includes('You said: hi from a pipe'),
      10000,
    );
    expect((await hs.mado(['logs', short])).stdout).toContain('You said: hi from a pipe');
    // A pipe its caller keeps open and never writes is no input for a task on the line: no hang.
    const open = await new Promise<{ code: number; stdout: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [MADO, '--bg', '--agent', 'replier', 'the task alone'],
        { env: hs.env, timeout: 20000 },
        (err, stdout) => resolve({ code: err ? 1 : 0, stdout }),
      );
      child.stdin?.write('');
    });
    expect(open.code).toBe(0);
    const alone = shortOf(open.stdout);
    await until(
      async () => (await hs.mado(['logs', alone])).stdout,
      (t) => t.includes('You said: the task alone'),
      10000,
    );
  });

  it('holds a reply while a draft stands in the agent’s input line, and sends it once the line is empty', async () => {
    const short = shortOf((await hs.mado(['--bg', '--agent', 'replier'])).stdout);
    await until(hs.jobs, (j) => j[0]?.alive === true);
    const info = JSON.parse(readFileSync(path.join(hs.base, 'jobs', short, 'host.json'), 'utf8')) as { socket: string };
    // Someone attached types a draft.
    const { conn } = await Conn.open(info.socket);
    conn.send({ proto: PROTO, op: 'input', data: 'half' });
    await until(
      async () => (await hs.mado(['logs', short])).stdout,
      (t) => t.includes('❯ half'),
    );
    expect(await hs.mado(['send', short, 'the reply'])).toMatchObject({
      code: 0,
      stdout: `held: draft for ${short}: sent once its input line is empty\n`,
    });
    const noReply = async (): Promise<boolean> => !(await hs.mado(['logs', short])).stdout.includes('You said');
    expect(await holds(noReply, 500, 100)).toBe(true);
    conn.send({ proto: PROTO, op: 'input', data: '\x7f\x7f\x7f\x7f' });
    const logs = await until(
      async () => (await hs.mado(['logs', short])).stdout,
      (t) => t.includes('You said: the reply'),
      8000,
    );
    expect(logs).toContain('You said: the reply');
    expect(logs).not.toContain('You said: half');
    conn.close();
  });
});

describe("a working job's file", () => {
  // Its spinner row changes 6 times a second (its seconds tick every 150 ms), as a real one's frames.
  const hs = useJobsHarness({
    spinner: {
      command: ['env', 'MADOHUB_FIXTURE_TICK_MS=150', 'node', `${FIXTURES}/agent.cjs`, 'claude-working'],
      prompt: 'type',
    },
  });
  it('is written again for its spinner alone at most every 2 s, its last detail after', async () => {
    const short = shortOf((await hs.mado(['--bg', '--agent', 'spinner'])).stdout);
    const dir = path.join(hs.env.MADOHUB_JOBS_DIR!, short);
    await until(hs.jobs, (j) => j[0]?.tempo === 'active' && /Baking/.test(String(j[0]?.detail)));
    let events = 0;
    const watcher = watch(dir, (_event, name) => {
      if (name === 'job.json') events++;
    });
    const first = String((await hs.jobs())[0]?.detail);
    const t0 = Date.now();
    await until(
      async () => Date.now() - t0,
      (ms) => ms >= 4500,
      10000,
    );
    watcher.close();
    // About 30 frames in 4.5 s; a write (a rename into place) is one or two events: three writes at most.
    expect(events).toBeLessThanOrEqual(6);
    // The detail still follows, paced.
    expect(String((await hs.jobs())[0]?.detail)).not.toBe(first);
  });
});

describe('jobs of agents that tell their state in their records alone (Copilot CLI, Qwen Code, Pi)', () => {
  const bin = (agent: string): object => ({ command: [`${FIXTURES}/bin/${agent}`], prompt: 'type' });
  const hs = useJobsHarness({ copilot: bin('copilot'), qwen: bin('qwen'), pi: bin('pi') });
  it.each([
    ['copilot', 'Copilot'],
    ['qwen', 'Qwen'],
    ['pi', 'Pi'],
  ])('a %s job shows each finished turn, confirmed by its records (written after the screen)', async (agent, name) => {
    // Its records go to a home of the test's own.
    const env = { HOME: path.join(hs.base, 'home') };
    const short = shortOf((await hs.mado(['--bg', '--agent', agent], undefined, env)).stdout);
    const job = async (): Promise<Record<string, unknown> | undefined> =>
      (await hs.jobs()).find((j) => j.short === short);
    await until(job, (j) => j?.agent === agent && j.tempo === 'idle');
    for (const n of [1, 2]) {
      expect((await hs.mado(['send', short, 't'], undefined, env)).code).toBe(0);
      // Done once its records end the turn: its screen after a turn reads Idle alone.
      const done = await until(
        job,
        (j) => j?.status === 'done' && String(j.detail) === `${name} answer of turn ${n}.`,
        8000,
      );
      expect(done).toMatchObject({
        status: 'done',
        stateSource: 'jsonl-watcher',
        detail: `${name} answer of turn ${n}.`,
      });
    }
  });
});
