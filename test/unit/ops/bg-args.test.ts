import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { hintBlock, MAX_STDIN_BYTES, parseBgArgs, withStdin } from '../../../src/ops/bg-args.js';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UsageError } from '../../../src/shared/errors.js';
import { agentViewDisabled } from '../../../src/cli/switch.js';

describe('mado --bg arguments', () => {
  it('a prompt of several words', () => {
    expect(parseBgArgs(['fix', 'the', 'tests'])).toEqual({ forkSession: false, prompt: 'fix the tests', warnings: [] });
  });
  it('every flag, in both spellings', () => {
    expect(parseBgArgs(['--agent', 'codex', '-n', 'fixer', 'go'])).toMatchObject({
      agent: 'codex',
      name: 'fixer',
      prompt: 'go',
    });
    expect(parseBgArgs(['--agent=gemini', '--name=x'])).toMatchObject({ agent: 'gemini', name: 'x', prompt: '' });
    expect(parseBgArgs(['--resume', 'abc', '--fork-session'])).toMatchObject({
      resume: { mode: 'id', id: 'abc' },
      forkSession: true,
    });
    expect(parseBgArgs(['-c'])).toMatchObject({ resume: { mode: 'continue' } });
    expect(parseBgArgs(['--continue', 'more'])).toMatchObject({ resume: { mode: 'continue' }, prompt: 'more' });
  });
  it('--worktree, with a branch only as --worktree=BRANCH', () => {
    expect(parseBgArgs(['--worktree', 'fix', 'it'])).toMatchObject({ worktree: {}, prompt: 'fix it' });
    expect(parseBgArgs(['-w', 'go']).worktree).toEqual({});
    expect(parseBgArgs(['--worktree=feat/x', 'go'])).toMatchObject({ worktree: { branch: 'feat/x' }, prompt: 'go' });
  });
  it('-- ends the options', () => {
    expect(parseBgArgs(['--name', 'n', '--', '--agent', '-c', 'literally'])).toMatchObject({
      name: 'n',
      prompt: '--agent -c literally',
    });
    expect(parseBgArgs(['--name', 'n', '--', '--agent']).agent).toBeUndefined();
  });
  it('--session-id is ignored with a warning', () => {
    expect(parseBgArgs(['--session-id', 'x', 'go'])).toMatchObject({
      prompt: 'go',
      warnings: ['--session-id is ignored: mado gives each job its own session id'],
    });
  });
  it.each([
    [['--agent'], '--agent needs a value'],
    [['--name', '--agent', 'x'], '--name needs a value'],
    [['--resume', 'a', '-c'], '-c and an earlier --resume/--continue exclude each other'],
    [['--fork-session', 'go'], '--fork-session needs --resume ID or --continue'],
    [['--frobnicate'], 'unknown option --frobnicate (see mado --help)'],
    // A session id or a branch that would be read as an option by the agent or by git.
    [['--resume=--some-flag', 'go'], "--resume needs a session id, not '--some-flag'"],
    [['--resume', 'a b'], "--resume needs a session id, not 'a b'"],
    [
      ['--worktree=--set-upstream-to=main', 'go'],
      "--worktree=BRANCH needs a branch name, not '--set-upstream-to=main'",
    ],
    [
      ['x'.repeat(130 * 1024)],
      'the prompt is 130 KiB, and a job takes at most 120 KiB: put the text in a file and name the file in the prompt',
    ],
  ])('%j is refused: %s', (argv, message) => {
    expect(() => parseBgArgs(argv)).toThrow(UsageError);
    expect(() => parseBgArgs(argv)).toThrow(message);
  });
});

describe('standard input', () => {
  it('is appended to the prompt', () => {
    expect(withStdin(parseBgArgs(['review', 'this']), 'diff --git a b\n').prompt).toBe(
      'review this\n\ndiff --git a b\n',
    );
    expect(withStdin(parseBgArgs([]), 'only stdin').prompt).toBe('only stdin');
    expect(withStdin(parseBgArgs(['x']), '  \n').prompt).toBe('x');
  });
  it('is cut at 16 KiB with a notice', () => {
    const r = withStdin(parseBgArgs(['go']), 'é'.repeat(20000));
    expect(Buffer.byteLength(r.prompt.slice('go\n\n'.length))).toBeLessThanOrEqual(MAX_STDIN_BYTES);
    expect(r.prompt.endsWith('\uFFFD')).toBe(false);
    expect(r.warnings).toEqual(['standard input cut at 16 KiB (40 KiB given)']);
  });
  it('loses its NUL bytes with a notice', () => {
    const r = withStdin(parseBgArgs(['go']), 'a\0b\0c');
    expect(r.prompt).toBe('go\n\nabc');
    expect(r.warnings).toEqual(['standard input held 2 NUL bytes, dropped (a prompt cannot hold them)']);
  });
});

describe('hint block', () => {
  it('names jobs, aligned', () => {
    expect(hintBlock('3fa2c1d0')).toBe(
      [
        'backgrounded · 3fa2c1d0',
        '  mado jobs             list jobs',
        '  mado attach 3fa2c1d0  open in this terminal (Ctrl-] detaches, the job goes on)',
        '  mado logs 3fa2c1d0    show recent output',
        '  mado stop 3fa2c1d0    stop this job',
        '',
      ].join('\n'),
    );
  });
});

describe('the switch that turns the agent view off', () => {
  it('is MADOHUB_DISABLE_AGENT_VIEW=1, or agent_view = false in settings.json', () => {
    const config = mkdtempSync(path.join(tmpdir(), 'madohub-settings-'));
    expect(agentViewDisabled({ XDG_CONFIG_HOME: config })).toBe(false);
    expect(agentViewDisabled({ XDG_CONFIG_HOME: config, MADOHUB_DISABLE_AGENT_VIEW: '1' })).toBe(true);
    mkdirSync(path.join(config, 'madohub'));
    writeFileSync(path.join(config, 'madohub', 'settings.json'), JSON.stringify({ agent_view: false }));
    expect(agentViewDisabled({ XDG_CONFIG_HOME: config })).toBe(true);
    writeFileSync(path.join(config, 'madohub', 'settings.json'), '{broken');
    expect(agentViewDisabled({ XDG_CONFIG_HOME: config })).toBe(false);
  });
  it('a FIFO for settings.json is no setting, and hangs nothing', () => {
    const config = mkdtempSync(path.join(tmpdir(), 'madohub-settings-'));
    mkdirSync(path.join(config, 'madohub'));
    execFileSync('mkfifo', [path.join(config, 'madohub', 'settings.json')]);
    expect(agentViewDisabled({ XDG_CONFIG_HOME: config })).toBe(false);
  });
});
