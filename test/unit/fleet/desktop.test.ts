import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Desktop,
  findNotifier,
  MAX_RUNNING,
  MAX_WAITING,
  notifierArgs,
  probe,
  runsShell,
} from '../../../src/fleet/desktop.js';
import type { Notifier } from '../../../src/fleet/desktop.js';
import type { Notice } from '../../../src/fleet/attention.js';
import { holds, until } from '../../helpers/wait.js';

const notice = (more: Partial<Notice> = {}): Notice => ({
  seq: 1,
  items: [],
  title: 'claude main: Claude Code Waiting',
  body: 'Do you want to proceed?\nbuffer 3 — :MadoJump',
  message: '',
  urgent: true,
  jump: 'term:3',
  replaces: null,
  burst: 1,
  quiet: false,
  ...more,
});
const notifier = (kind: Notifier['kind'], more: Partial<Notifier> = {}): Notifier => ({
  kind,
  exe: `/usr/bin/${kind}`,
  args: [],
  actions: false,
  replace: false,
  ...more,
});

let dir: string;
/** The desktops a test made: their runs that wait for a click end with the test, whatever it did. */
const made: Desktop[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'madohub-desktop-'));
});
afterEach(() => {
  for (const d of made.splice(0)) d.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A script in the test's folder, runnable. */
function script(name: string, body: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('finding the notifier', () => {
  it('the system’s on PATH (notify-send; terminal-notifier before osascript on macOS), or why there is none', () => {
    script('notify-send', 'exit 0');
    expect(findNotifier(null, { PATH: dir }, 'linux')).toMatchObject({
      ok: true,
      notifier: { kind: 'notify-send', exe: path.join(dir, 'notify-send') },
    });
    expect(findNotifier(null, { PATH: '/nonexistent' }, 'linux')).toEqual({
      ok: false,
      why: expect.stringMatching(/notify-send .*libnotify-bin.* is not on PATH/),
    });
    script('osascript', 'exit 0');
    expect(findNotifier(null, { PATH: dir }, 'darwin')).toMatchObject({ ok: true, notifier: { kind: 'osascript' } });
    script('terminal-notifier', 'exit 0');
    expect(findNotifier(null, { PATH: dir }, 'darwin')).toMatchObject({
      ok: true,
      notifier: { kind: 'terminal-notifier' },
    });
  });

  it('the user’s command, its program looked up; one that is not there is named', () => {
    const mine = script('my-notify', 'exit 0');
    expect(findNotifier(['my-notify', '--title', '{title}'], { PATH: dir })).toMatchObject({
      ok: true,
      notifier: { kind: 'command', exe: mine, args: ['--title', '{title}'] },
    });
    expect(findNotifier([mine], { PATH: '' })).toMatchObject({ ok: true, notifier: { exe: mine } });
    const missing = findNotifier(['nope-notify'], { PATH: dir });
    expect(missing).toEqual({ ok: false, why: 'notify.desktop.command: nope-notify is not an executable on PATH' });
  });

  it('notify-send’s abilities from its --help; one that hangs is given up on', async () => {
    const full = script(
      'notify-send',
      `echo '  -A, --action=[NAME=]Text...'; echo '  -p, --print-id'; echo '  -r, --replace-id=REPLACE_ID'`,
    );
    expect(await probe(notifier('notify-send', { exe: full }))).toMatchObject({ actions: true, replace: true });
    const old = script('old-notify-send', `echo '  -u, --urgency=LEVEL'`);
    expect(await probe(notifier('notify-send', { exe: old }))).toMatchObject({ actions: false, replace: false });
    const hangs = script('hung-notify-send', 'exec sleep 10');
    const t0 = Date.now();
    expect(await probe(notifier('notify-send', { exe: hangs }))).toMatchObject({ actions: false, replace: false });
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});

describe('a notifier’s arguments', () => {
  it('notify-send: urgency, its id printed and the one it replaces, "Go there", the texts after --', () => {
    const n = notifier('notify-send', { replace: true, actions: true });
    expect(notifierArgs(n, notice({ title: '-rf /', urgent: false }), undefined, false)).toEqual([
      '-a',
      'MadoHub',
      '-u',
      'normal',
      '-p',
      '--',
      '-rf /',
      'Do you want to proceed?\nbuffer 3 — :MadoJump',
    ]);
    expect(notifierArgs(n, notice({ replaces: 1 }), '101', true)).toEqual([
      '-a',
      'MadoHub',
      '-u',
      'critical',
      '-p',
      '-r',
      '101',
      '-A',
      'jump=Go there',
      '--',
      'claude main: Claude Code Waiting',
      'Do you want to proceed?\nbuffer 3 — :MadoJump',
    ]);
  });

  it('osascript takes the texts as arguments, never in its script', () => {
    const args = notifierArgs(
      notifier('osascript'),
      notice({ title: '" & do shell script "rm -rf ~" & "' }),
      undefined,
      false,
    );
    const script = args.filter((_, i) => args[i - 1] === '-e').join('\n');
    expect(script).not.toContain('rm -rf');
    expect(args.slice(-2)).toEqual([
      '" & do shell script "rm -rf ~" & "',
      'Do you want to proceed?\nbuffer 3 — :MadoJump',
    ]);
  });

  it('a command of one’s own: {title}, {body}, {urgency} where it says, else the texts last; bounded', () => {
    expect(
      notifierArgs(
        notifier('command', { args: ['--urgency={urgency}', '{title}', '{body}'] }),
        notice(),
        undefined,
        false,
      ),
    ).toEqual([
      '--urgency=critical',
      'claude main: Claude Code Waiting',
      'Do you want to proceed?\nbuffer 3 — :MadoJump',
    ]);
    expect(notifierArgs(notifier('command', { args: ['-x'] }), notice(), undefined, false)).toEqual([
      '-x',
      'claude main: Claude Code Waiting',
      'Do you want to proceed?\nbuffer 3 — :MadoJump',
    ]);
    const long = notifierArgs(
      notifier('command'),
      notice({ title: 't'.repeat(100_000), body: 'b'.repeat(100_000) }),
      undefined,
      false,
    );
    expect(long[0]!.length).toBeLessThanOrEqual(200);
    expect(long[1]!.length).toBeLessThanOrEqual(1000);
  });

  it('terminal-notifier groups a burst’s notices, so that its summary replaces the first', () => {
    expect(notifierArgs(notifier('terminal-notifier'), notice({ seq: 5, replaces: 2 }), undefined, false)).toEqual(
      expect.arrayContaining(['-group', 'madohub-2']),
    );
  });
});

describe('Desktop', () => {
  it('runs the notifier once a notice; "Go there" read back; a summary replaces its burst’s first by its id', async () => {
    const log = path.join(dir, 'runs');
    const click = path.join(dir, 'click');
    const exe = script(
      'notify-send',
      `echo "$*" >> '${log}'
echo 42
case "$*" in *jump=*) i=0; while [ ! -e '${click}' ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; [ -e '${click}' ] && echo jump ;; esac`,
    );
    const jumped: string[] = [];
    const d = new Desktop(
      notifier('notify-send', { exe, actions: true, replace: true }),
      { debug: () => undefined, warn: () => undefined },
      (id) => jumped.push(id),
    );
    made.push(d);
    const runs = (): string[] => (existsSync(log) ? readFileSync(log, 'utf8').split('-a MadoHub').slice(1) : []);
    d.show(notice({ seq: 1 }));
    expect(await until(() => d.waitingRuns === 1 && runs().length === 1 && runs()[0]!.includes('jump=Go there'))).toBe(
      true,
    );
    expect(await until(() => d.notifierId(1) === '42')).toBe(true);
    d.show(notice({ seq: 2, replaces: 1, jump: 'term:4' }));
    expect(await until(() => runs().length === 2)).toBe(true);
    expect(runs()[1]).toContain('-r 42');
    // The first notice's run was ended when its summary replaced it: only the summary waits.
    expect(d.waitingRuns).toBe(1);
    writeFileSync(click, '');
    expect(await until(() => jumped.length === 1)).toBe(true);
    expect(jumped).toEqual(['term:4']);
    d.stop();
  });

  it(`never keeps more than ${MAX_WAITING} runs that wait for a click`, async () => {
    const exe = script('notify-send', 'exec sleep 10');
    const d = new Desktop(
      notifier('notify-send', { exe, actions: true }),
      { debug: () => undefined, warn: () => undefined },
      () => undefined,
    );
    made.push(d);
    for (let i = 1; i <= MAX_WAITING + 5; i++) d.show(notice({ seq: i, burst: i }));
    expect(d.runs).toBe(MAX_WAITING + 5);
    expect(d.waitingRuns).toBe(MAX_WAITING);
    d.stop();
    expect(d.waitingRuns).toBe(0);
  });

  it('a shell’s script names the notice’s texts by their variables, never splices them in: a body that is shell runs nothing', async () => {
    const hostile = notice({ title: 'x"; touch pwned-title; "', body: '$(touch pwned) `touch pwned2` {title}' });
    const sh = notifier('command', {
      exe: '/bin/sh',
      args: ['-c', 'printf "%s|%s" {title} {body} > out', '_', '{title}'],
    });
    expect(runsShell(sh)).toBe(true);
    expect(runsShell(notifier('command', { exe: '/usr/bin/my-notify' }))).toBe(false);
    // The script's placeholders name variables; an argument after it is the text itself (a positional parameter: data).
    expect(notifierArgs(sh, hostile, undefined, false)).toEqual([
      '-c',
      'printf "%s|%s" "$MADOHUB_TITLE" "$MADOHUB_BODY" > out',
      '_',
      'x"; touch pwned-title; "',
    ]);
    // A program's own arguments get the text, once: a text holding {title} is not read again.
    expect(notifierArgs(notifier('command', { args: ['--body={body}'] }), hostile, undefined, false)).toEqual([
      '--body=$(touch pwned) `touch pwned2` {title}',
    ]);
    // Run for real, in the test's folder: the texts arrive whole, nothing of them ran.
    const d = new Desktop(
      notifier('command', { exe: '/bin/sh', args: ['-c', `cd '${dir}' && printf "%s|%s" {title} {body} > out`] }),
      { debug: () => undefined, warn: () => undefined },
    );
    d.show(hostile);
    expect(
      await until(() => existsSync(path.join(dir, 'out')) && readFileSync(path.join(dir, 'out'), 'utf8').length > 0),
    ).toBe(true);
    expect(readFileSync(path.join(dir, 'out'), 'utf8')).toBe(
      'x"; touch pwned-title; "|$(touch pwned) `touch pwned2` {title}',
    );
    for (const f of ['pwned', 'pwned2', 'pwned-title']) expect(existsSync(path.join(dir, f)), f).toBe(false);
  });

  it('a run that ignores SIGTERM is killed a moment later; at most MAX_RUNNING runs at once, the rest said', async () => {
    const pids = path.join(dir, 'pids');
    const exe = script('notify-send', `echo $$ >> '${pids}'; trap '' TERM; exec sleep 30`);
    const debug: string[] = [];
    const d = new Desktop(
      notifier('notify-send', { exe, actions: true }),
      { debug: (m) => debug.push(m), warn: () => undefined },
      () => undefined,
    );
    made.push(d);
    d.show(notice());
    expect(await until(() => existsSync(pids) && readFileSync(pids, 'utf8').trim() !== '')).toBe(true);
    const pid = Number(readFileSync(pids, 'utf8').trim());
    const alive = (): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    d.stop();
    // SIGTERM is ignored: SIGKILL a second later.
    expect(await until(() => !alive(), 5000)).toBe(true);
    // Runs that wait for no click: MAX_RUNNING at once.
    const slow = new Desktop(notifier('command', { exe: script('slow', 'exec sleep 5') }), {
      debug: (m) => debug.push(m),
      warn: () => undefined,
    });
    for (let i = 1; i <= MAX_RUNNING + 3; i++) slow.show(notice({ seq: i, burst: i }));
    expect(slow.runs).toBe(MAX_RUNNING);
    expect(slow.runningRuns).toBe(MAX_RUNNING);
    expect(debug.filter((m) => m.includes('runs still going'))).toHaveLength(3);
  });

  it('a notifier that floods its output is not read on: it ends (a broken pipe), the process is not kept busy', async () => {
    const exe = script('notify-send', 'exec yes "12345 a long line that is no id"');
    const d = new Desktop(notifier('notify-send', { exe, replace: true }), {
      debug: () => undefined,
      warn: () => undefined,
    });
    d.show(notice());
    expect(d.runningRuns).toBe(1);
    expect(await until(() => d.runningRuns === 0, 5000)).toBe(true);
  });

  it('a notifier that fails is said once, quietly', async () => {
    const warned: string[] = [];
    const d = new Desktop(notifier('command', { exe: path.join(dir, 'gone') }), {
      debug: () => undefined,
      warn: (m) => warned.push(m),
    });
    d.show(notice());
    d.show(notice({ seq: 2 }));
    expect(await until(() => warned.length > 0)).toBe(true);
    expect(await holds(() => warned.length === 1, 100)).toBe(true);
    expect(warned[0]).toMatch(/desktop notifier .*gone: .*ENOENT/);
  });
});
