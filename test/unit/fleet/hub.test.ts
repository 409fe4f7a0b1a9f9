import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FleetEntry } from '../../../src/fleet/entry.js';
import type { FleetChange } from '../../../src/fleet/fleet.js';
import { FleetHub } from '../../../src/fleet/hub.js';
import { TerminalWatchers } from '../../../src/state/terminal-watchers.js';
import { Tracker } from '../../../src/state/tracker.js';
import { blankJob, createJob, updateJob } from '../../../src/jobs/store.js';
import { elapse, holds, waitFor } from '../../helpers/wait.js';

const quiet = { debug: () => undefined, warn: () => undefined };

let root: string;
let saved: NodeJS.ProcessEnv;
let hub: FleetHub | undefined;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'madohub-hub-'));
  saved = { ...process.env };
  for (const d of ['home', 'jobs', 'run', 'state']) mkdirSync(path.join(root, d));
  Object.assign(process.env, {
    HOME: path.join(root, 'home'),
    MADOHUB_JOBS_DIR: path.join(root, 'jobs'),
    XDG_RUNTIME_DIR: path.join(root, 'run'),
    XDG_STATE_HOME: path.join(root, 'state'),
  });
});
afterEach(() => {
  hub?.stop();
  hub = undefined;
  process.env = saved;
  rmSync(root, { recursive: true, force: true });
});

/** A hub on the test's folders, and the job entries as last pushed, by id. */
function startHub(): { hub: FleetHub; jobs: Map<string, FleetEntry> } {
  const jobs = new Map<string, FleetEntry>();
  const tracker = new Tracker();
  const watchers = new TerminalWatchers(
    { process: () => undefined, record: () => undefined, place: () => undefined },
    quiet,
  );
  const h = new FleetHub(
    tracker,
    watchers,
    (change: FleetChange) => {
      for (const e of change.put) if (e.kind === 'job') jobs.set(e.id, e);
      for (const id of change.removed) jobs.delete(id);
    },
    quiet,
  );
  h.start();
  hub = h;
  return { hub: h, jobs };
}

const job = (short: string, name: string): void => {
  createJob(path.join(root, 'jobs'), {
    ...blankJob(short),
    status: 'stopped',
    name,
    agent: 'shell',
    cwd: root,
    originCwd: root,
  });
};

describe('the fleet hub', () => {
  it('tells its events to each that listens, the events each names (no hook assigned from outside)', () => {
    const { hub: h } = startHub();
    const heard: string[] = [];
    h.listen({ gone: (id) => heard.push(`routes: ${id} gone`) });
    h.listen({ gone: (id) => heard.push(`lua: ${id} gone`), hostProblems: (p) => heard.push(p.join()) });
    h.listen({ replyKept: () => heard.push('never') });
    h.forgetTerminal(7);
    expect(heard).toEqual(['routes: term:7 gone', 'lua: term:7 gone']);
  });

  it('a move of jobs shows as written, all orders in one push, before the watcher reads the files back', async () => {
    job('0000000a', 'first');
    job('0000000b', 'second');
    const { hub: h, jobs } = startHub();
    await waitFor(() => jobs.size === 2);
    const pushes: number[][] = [];
    const seen = (): number[] => [jobs.get('job:0000000a')!.order, jobs.get('job:0000000b')!.order];
    await h.reorder([
      { id: 'job:0000000a', order: 2 },
      { id: 'job:0000000b', order: 1 },
    ]);
    pushes.push(seen());
    // At once, both: no half-moved group, no wait on the watcher (a second move would undo the first).
    expect(pushes[0]).toEqual([2, 1]);
    // A second move at once builds on the first.
    await h.reorder([
      { id: 'job:0000000a', order: 1 },
      { id: 'job:0000000b', order: 2 },
    ]);
    expect(seen()).toEqual([1, 2]);
    // An entry gone meanwhile is the move's error; the others' orders are kept and shown.
    await expect(
      h.reorder([
        { id: 'job:0000000a', order: 2 },
        { id: 'term:99', order: 1 },
      ]),
    ).rejects.toThrow("no agent 'term:99'");
    expect(seen()).toEqual([2, 2]);
  });

  it('a listing read before the hub wrote a job file does not undo the write; a newer one is shown', async () => {
    job('0000000c', 'third');
    const file = path.join(root, 'jobs', '0000000c', 'job.json');
    const before = readFileSync(file, 'utf8');
    const { hub: h, jobs } = startHub();
    await waitFor(() => jobs.size === 1);
    await h.mark('job:0000000c', { name: 'renamed' });
    expect(jobs.get('job:0000000c')!.name).toBe('renamed');
    // What a listing that read the file before the write would have: older, it is not shown.
    writeFileSync(file, before);
    expect(await holds(() => jobs.get('job:0000000c')!.name === 'renamed', 800)).toBe(true);
    // The file as another writer changes it later: newer, it shows.
    await updateJob(path.join(root, 'jobs'), '0000000c', { name: 'from the CLI', nameSource: 'user' });
    await waitFor(() => jobs.get('job:0000000c')!.name === 'from the CLI');
    expect(jobs.get('job:0000000c')!.name).toBe('from the CLI');
  });

  it('a job listed while its file is being made shows its file once made, whatever its time', async () => {
    const { jobs } = startHub();
    // After the hub's first listing (of no job).
    await elapse(300);
    // Its folder first: listed as a job whose file cannot be read (its time: now).
    mkdirSync(path.join(root, 'jobs', '0000000d'));
    await waitFor(() => jobs.has('job:0000000d'));
    expect(jobs.get('job:0000000d')!.state).toBe('failed');
    // Then its file, made a moment before that listing (the daemon's clock read before it wrote).
    const made = {
      ...blankJob('0000000d', Date.now() - 500),
      status: 'running',
      tempo: 'active',
      intent: 'echo attached at once',
      agent: 'shell',
      cwd: root,
      originCwd: root,
    };
    writeFileSync(path.join(root, 'jobs', '0000000d', 'job.json'), JSON.stringify(made));
    await waitFor(() => jobs.get('job:0000000d')!.intent === 'echo attached at once');
    expect(jobs.get('job:0000000d')!.intent).toBe('echo attached at once');
  });
});

describe('a terminal’s question in the fleet', () => {
  it('is none while its screen shows no question yet (the agent’s own word that it waits came first), then the screen’s', () => {
    const screens = JSON.parse(readFileSync(path.join(__dirname, '../../fixtures/screens.json'), 'utf8')) as Record<
      string,
      { lines: string[]; title: string }
    >;
    const terms = new Map<string, FleetEntry>();
    const tracker = new Tracker();
    const watchers = new TerminalWatchers(
      { process: () => undefined, record: () => undefined, place: () => undefined },
      quiet,
    );
    hub = new FleetHub(
      tracker,
      watchers,
      (change: FleetChange) => {
        for (const e of change.put) if (e.kind === 'terminal') terms.set(e.id, e);
      },
      quiet,
    );
    const show = (name: string): void => {
      const s = screens[name]!;
      tracker.screen(3, { lines: s.lines, title: s.title }, Date.now());
      hub!.screen(3, s.lines);
      hub!.placeTerminal(3);
    };
    show('claude-idle');
    // Claude Code's notification says it waits; its screen is still the idle one.
    tracker.notification(3, { state: 'waiting', detail: 'permission prompt' }, Date.now() + 1000);
    show('claude-idle');
    expect(terms.get('term:3')).toMatchObject({ state: 'waiting', detail: 'permission prompt', needs: null });
    show('claude-approval');
    expect(terms.get('term:3')).toMatchObject({
      state: 'waiting',
      needs: { question: 'Do you want to proceed? — rm -rf build' },
    });
  });
});
