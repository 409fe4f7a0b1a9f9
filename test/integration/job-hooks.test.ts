// A job's agent tells its state itself (issue 17 §4): Claude Code is started with a settings file of
// the job's own (`--settings`), whose hooks append each event to the job's events file; its host reads
// them beside the screen. The fixture named like Claude Code runs the hooks of the file it is given as
// Claude Code 2.1.332 does.
import { existsSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import * as pty from 'node-pty';
import { describe, expect, it } from 'vitest';
import { request } from '../../src/jobs/protocol/client.js';
import { FIX, MADO, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { elapse, holds } from '../helpers/wait.js';

const h = useJobsHarness({
  opencode: { command: [path.join(FIX, 'bin/opencode')], prompt: 'type' },
  gemini: { command: [path.join(FIX, 'bin/gemini')], prompt: 'type' },
});

/** A job of `agent` started and up: its folder and its job file as it is now. */
async function started(
  agent: string,
  ...prompt: string[]
): Promise<{ short: string; dir: string; job: () => Record<string, unknown> }> {
  const short = shortOf((await h.mado(['--bg', '--agent', agent, ...prompt])).stdout);
  const dir = path.join(h.base, 'jobs', short);
  await until(
    async () => existsSync(path.join(dir, 'host.json')),
    (v) => v,
  );
  return {
    short,
    dir,
    job: () => JSON.parse(readFileSync(path.join(dir, 'job.json'), 'utf8')) as Record<string, unknown>,
  };
}

/** `mado attach short` in a terminal, once it has drawn the job's screen (on the alternate screen). */
async function attach(short: string): Promise<pty.IPty> {
  const term = pty.spawn(process.execPath, [MADO, 'attach', short], {
    cols: 100,
    rows: 30,
    env: h.env as Record<string, string>,
  });
  let seen = '';
  term.onData((d) => (seen += d));
  await until(
    async () => seen,
    (s) => /\x1b\[\?1049h[\s\S]*[A-Za-z]{3}/.test(s),
  );
  return term;
}

/** Job `short`'s host's count of attached clients. */
async function clientsOf(dir: string): Promise<number> {
  const info = JSON.parse(readFileSync(path.join(dir, 'host.json'), 'utf8')) as { socket: string };
  const status = await request(info.socket, { op: 'status' });
  return status.type === 'status' ? status.clients : -1;
}

/**
 * Types keys into job `short` through `mado attach`, as a person does, then detaches with Ctrl-]: what
 * was typed reaches the host before the view goes (one connection, in order), and the host has seen
 * it go (it then tells an agent that asked for focus reports it has none) when this returns.
 */
async function attached(short: string, keys: (write: (k: string) => void) => Promise<void>): Promise<void> {
  const term = await attach(short);
  let exitCode: number | undefined;
  term.onExit((e) => (exitCode = e.exitCode));
  try {
    await keys((k) => term.write(k));
    term.write('\x1d');
    expect(
      await until(
        async () => exitCode,
        (c) => c !== undefined,
      ),
    ).toBe(0);
  } finally {
    term.kill();
  }
  const dir = path.join(h.base, 'jobs', short);
  expect(
    await until(
      () => clientsOf(dir),
      (n) => n === 0,
    ),
  ).toBe(0);
}

describe('a job told by its agent’s hooks', () => {
  it('Waiting from a PermissionRequest the screen does not show, Completed ✓ from its Stop; the user’s settings untouched', async () => {
    const { short, dir, job } = await started('claude', 'clean up');
    // The settings are the job's own: its five hooks, each appending to the job's events file.
    const settings = JSON.parse(readFileSync(path.join(dir, 'push-settings.json'), 'utf8')) as {
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    expect(Object.keys(settings.hooks)).toEqual([
      'UserPromptSubmit',
      'PermissionRequest',
      'Notification',
      'Stop',
      'StopFailure',
    ]);
    expect(settings.hooks.Stop![0]!.hooks[0]!.command).toContain(path.join(dir, 'push.jsonl'));
    expect(existsSync(path.join(h.base, 'claude', 'settings.json'))).toBe(false);
    // The launch file stays the template's: the hooks' arguments are the host's to add, at each start.
    expect((JSON.parse(readFileSync(path.join(dir, 'launch.json'), 'utf8')) as { argv: string[] }).argv).not.toContain(
      '--settings',
    );

    await attached(short, async (write) => {
      write('U');
      await until(
        async () => job(),
        (j) => j.tempo === 'active' && j.stateSource === 'hook',
      );
      write('P');
      const waiting = await until(
        async () => job(),
        (j) => j.tempo === 'blocked',
      );
      // The screen still shows the spinner: the wait is the hook's, with its tool and command.
      expect(waiting).toMatchObject({
        status: 'running',
        tempo: 'blocked',
        needs: 'Bash: rm -rf build',
        stateSource: 'hook',
      });
      write('S');
      const done = await until(
        async () => job(),
        (j) => j.status === 'done',
      );
      expect(done).toMatchObject({ tempo: 'idle', detail: 'Removed the build folder.', stateSource: 'hook' });
      const table = (await h.mado(['agents'])).stdout;
      expect(table).toMatch(new RegExp(`^${short}\\s+running\\s+completed ✓\\s+claude`, 'm'));
    });
  }, 40000);

  it('a template that runs another program, whose screen shows Claude Code, gets no hooks: respawned too', async () => {
    // `looper` draws Claude Code's screens: its job's agent reads as claude, its program is no Claude Code.
    const short = shortOf((await h.mado(['--bg', '--agent', 'looper', 'x'])).stdout);
    const dir = path.join(h.base, 'jobs', short);
    await until(
      () => h.jobs(),
      (j) => j[0]?.agent === 'claude' && j[0]?.tempo === 'active',
    );
    expect((await h.mado(['kill', short])).code).toBe(0);
    await until(
      () => h.jobs(),
      (j) => j[0]?.status !== 'running',
    );
    const respawn = await h.mado(['respawn', short]);
    expect(respawn.code, respawn.stderr).toBe(0);
    await until(
      () => h.jobs(),
      (j) => j[0]?.status === 'running' && j[0]?.alive === true,
    );
    expect(existsSync(path.join(dir, 'push-settings.json'))).toBe(false);
    expect(readFileSync(path.join(dir, 'host.log'), 'utf8')).not.toContain('--settings');
  }, 40000);

  it("Gemini CLI's hooks, through system defaults of the job's own: Waiting from its permission, Completed ✓ from AfterAgent", async () => {
    const { short, dir, job } = await started('gemini');
    const settings = JSON.parse(readFileSync(path.join(dir, 'push-settings.json'), 'utf8')) as {
      hooks: Record<string, unknown>;
    };
    expect(Object.keys(settings.hooks)).toEqual(['BeforeAgent', 'Notification', 'AfterAgent']);
    await attached(short, async (write) => {
      write('U');
      await until(
        async () => job(),
        (j) => j.tempo === 'active' && j.stateSource === 'hook',
      );
      write('P');
      expect(
        await until(
          async () => job(),
          (j) => j.tempo === 'blocked',
        ),
      ).toMatchObject({ needs: 'touch mock-ran.txt', stateSource: 'hook' });
      write('S');
      expect(
        await until(
          async () => job(),
          (j) => j.status === 'done',
        ),
      ).toMatchObject({ stateSource: 'hook', detail: 'I will run a command. Done: ran it.' });
    });
  }, 40000);

  it("Codex's desktop notifications, read by its host as its terminal: told it has no focus, its approval is Waiting, its turn's end Completed ✓", async () => {
    const { short, dir, job } = await started('codex', 'go');
    expect(readFileSync(path.join(dir, 'host.log'), 'utf8')).toMatch(
      /started \S*bin\/codex -c tui\.notifications=true -c tui\.notification_method="osc9"/,
    );
    await until(
      async () => job(),
      (j) => j.tempo !== undefined,
    );
    // Attached, the client's own terminal has the focus: nothing is notified; once it leaves, the host
    // says it has none (the helper returns once the host has seen it go).
    await attached(short, async (write) => write('\x1b[I'));
    // Keys through `mado send` would paste: P and S go to the agent as typed, through a client that sends no focus report.
    const keys = (k: string): Promise<void> => attached(short, async (write) => write(k));
    await keys('P');
    expect(
      await until(
        async () => job(),
        (j) => j.tempo === 'blocked',
        8000,
      ),
    ).toMatchObject({ stateSource: 'notification', needs: 'touch mock-ran.txt' });
    await keys('S');
    expect(
      await until(
        async () => job(),
        (j) => j.status === 'done',
        8000,
      ),
    ).toMatchObject({ stateSource: 'notification', detail: 'Done: ran it.' });
  }, 60000);

  it("OpenCode's event stream: a permission asked while the screen works is Waiting, its idle Completed ✓", async () => {
    const { short, dir, job } = await started('opencode');
    // The host chose its port: `--port N --hostname 127.0.0.1` before the template's arguments.
    expect(readFileSync(path.join(dir, 'host.log'), 'utf8')).toMatch(
      /started \S*bin\/opencode --port \d+ --hostname 127\.0\.0\.1/,
    );
    await attached(short, async (write) => {
      // The stream opens a moment after the server: busy until the host has heard it.
      await until(
        async () => {
          write('B');
          // One key every 300 ms, as a person types them.
          await elapse(300);
          return job();
        },
        (j) => j.tempo === 'active' && j.stateSource === 'event-stream',
        15000,
      );
      write('A');
      expect(
        await until(
          async () => job(),
          (j) => j.tempo === 'blocked',
        ),
      ).toMatchObject({ status: 'running', needs: 'bash: touch mock-ran.txt', stateSource: 'event-stream' });
      write('R');
      await until(
        async () => job(),
        (j) => j.tempo === 'active',
      );
      write('I');
      expect(
        await until(
          async () => job(),
          (j) => j.status === 'done',
        ),
      ).toMatchObject({ stateSource: 'event-stream', detail: 'answered' });
      expect((await h.mado(['agents'])).stdout).toMatch(
        new RegExp(`^${short}\\s+running\\s+completed ✓\\s+opencode`, 'm'),
      );
    });
  }, 60000);

  it('garbage, a flood and events of a sub-agent in the events file change nothing and hang nothing', async () => {
    const { short, dir } = await started('claude', 'x');
    const events = path.join(dir, 'push.jsonl');
    const sub = JSON.stringify({
      session_id: 's',
      agent_id: 'a1',
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'x' },
    });
    appendFileSync(events, `not json\n${'{'.repeat(200_000)}\n${sub}\n`);
    for (let i = 0; i < 20; i++)
      appendFileSync(events, `${JSON.stringify({ hook_event_name: 'Bogus', n: i, pad: 'p'.repeat(60_000) })}\n`);
    // Read: past its bound the file is emptied.
    expect(
      await until(
        async () => readFileSync(events, 'utf8').length,
        (n) => n < 1024 * 1024,
      ),
    ).toBeLessThan(1024 * 1024);
    const job = (): Record<string, unknown> =>
      JSON.parse(readFileSync(path.join(dir, 'job.json'), 'utf8')) as Record<string, unknown>;
    expect(await holds(() => job().tempo !== 'blocked' && job().stateSource !== 'hook', 500)).toBe(true);
    // Past its bound the file is emptied (what was in it was read).
    const after = readFileSync(events, 'utf8').length;
    expect(after).toBeLessThan(1024 * 1024);
    // The host still answers.
    expect((await h.mado(['logs', short])).code).toBe(0);
    writeFileSync(events, '');
  }, 40000);
});
