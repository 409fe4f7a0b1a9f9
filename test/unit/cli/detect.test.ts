import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDetectArgs, runDetect, screenLines } from '../../../src/cli/detect.js';
import { AGENT_MODULES } from '../../../src/agents/index.js';
import { UsageError } from '../../../src/shared/errors.js';
import screens from '../../fixtures/screens.json';

const root = path.resolve(__dirname, '../../..');
const mado = path.join(root, 'bin/mado');
const codexApproval = screens['codex-approval'];

describe('mado detect (in process)', () => {
  it('parses FILE and --title', () => {
    expect(parseDetectArgs(['a.txt', '--title', 'T'])).toEqual({
      file: 'a.txt',
      title: 'T',
      explain: false,
      json: false,
    });
    expect(parseDetectArgs(['--title=T'])).toEqual({ title: 'T', explain: false, json: false });
    expect(parseDetectArgs(['--explain', '--json'])).toEqual({ title: '', explain: true, json: true });
    expect(() => parseDetectArgs(['--title'])).toThrow(UsageError);
    expect(() => parseDetectArgs(['a', 'b'])).toThrow(UsageError);
    expect(() => parseDetectArgs(['--nope'])).toThrow(UsageError);
  });
  it('--agent reads the screen as that agent: an approval menu alone, with no footer that names Codex', () => {
    expect(parseDetectArgs(['--agent', 'codex'])).toMatchObject({ title: '', agent: 'codex' });
    expect(parseDetectArgs(['--agent=gemini', 'a.txt'])).toMatchObject({ title: '', agent: 'gemini', file: 'a.txt' });
    expect(() => parseDetectArgs(['--agent', 'vim'])).toThrow(
      `--agent vim is no agent (${AGENT_MODULES.map((a) => a.id).join(', ')})`,
    );
    expect(() => parseDetectArgs(['--agent'])).toThrow('--agent needs a value');
    const menu = codexApproval.lines.slice(codexApproval.lines.findIndex((l) => l.includes('Would you like to run')));
    expect(JSON.parse(runDetect(['--agent', 'codex'], () => menu.join('\n')))).toMatchObject({
      agent: 'codex',
      state: 'waiting',
    });
  });
  it('trims trailing blank rows and CRs', () => {
    expect(screenLines('a\r\nb\n\n  \n')).toEqual(['a', 'b']);
  });
  it('reads standard input when no file is named', () => {
    const out = JSON.parse(runDetect(['--title', codexApproval.title], () => codexApproval.lines.join('\n')));
    expect(out).toEqual({
      agent: 'codex',
      state: 'waiting',
      source: 'pty-scrape',
      detail: 'Press enter to confirm or esc to cancel',
      rule: 'codex/approval',
    });
  });
  it('names the rule that decided, null when none did', () => {
    expect(JSON.parse(runDetect([], () => 'just some text'))).toMatchObject({ agent: 'shell', rule: null });
    const stopped = screens['claude-stopped'];
    expect(JSON.parse(runDetect(['--title', stopped.title], () => stopped.lines.join('\n')))).toMatchObject({
      state: 'stopped',
      rule: 'shared/completion',
    });
  });
  it('--explain says why: the agent and how it was told, the rule and its line, the rules passed over', () => {
    const text = runDetect(['--explain', '--title', codexApproval.title], () => codexApproval.lines.join('\n'));
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^agent: +codex, by its marker in the title \(\/.+Action Required.+\/\)$/);
    expect(runDetect(['--explain'], () => codexApproval.lines.join('\n')).split('\n')[0]).toMatch(
      /^agent: +codex, by its marker on the screen \(row \d+: \/.+\/\)$/,
    );
    expect(lines[1]).toBe('state:   waiting (pty-scrape): Press enter to confirm or esc to cancel');
    expect(lines[2]).toMatch(/^decided: rule codex\/approval, row \d+: Press enter to confirm or esc to cancel$/);
    expect(lines).toContain('passed over:');
    const json = JSON.parse(
      runDetect(['--explain', '--json', '--agent', 'codex'], () => codexApproval.lines.join('\n')),
    );
    expect(json).toMatchObject({
      agent: 'codex',
      state: 'waiting',
      rule: 'codex/approval',
      identity: { by: 'told' },
      decided: { by: 'rule', rule: 'codex/approval' },
    });
    expect(() => runDetect(['--json'], () => '')).toThrow('--json goes with --explain');
  });
  it('reads the end of a screen file bigger than 1 MiB', () => {
    const big = `${'x'.repeat(80)}\n`.repeat(20_000) + codexApproval.lines.join('\n');
    expect(JSON.parse(runDetect(['--title', codexApproval.title], () => big))).toMatchObject({
      agent: 'codex',
      state: 'waiting',
    });
  });
});

describe('mado detect (the built command)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mado-detect-'));
  it('prints one JSON line for a file', () => {
    const file = path.join(dir, 'screen.txt');
    writeFileSync(file, screens['claude-stopped'].lines.join('\n'));
    const out = execFileSync('node', [mado, 'detect', file, '--title', '✳ Claude Code'], { encoding: 'utf8' });
    expect(out.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(out)).toMatchObject({ agent: 'claude', state: 'stopped', source: 'pty-scrape' });
  });
  it('a missing file is a clear message and exit 2', () => {
    const r = spawnSync('node', [mado, 'detect', path.join(dir, 'missing.txt')], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/cannot read .*missing\.txt: ENOENT/);
  });
  it('a rule file over its time budget on this screen is turned off, and said on standard error after the reading', () => {
    const config = mkdtempSync(path.join(tmpdir(), 'mado-detect-config-'));
    mkdirSync(path.join(config, 'madohub', 'rules'), { recursive: true });
    // Linear rules (accepted), but costly: each tries up to 60 letters at each of a row's places; each
    // row, each another, holds the words they end with, but first: none matches, and each is tried at
    // every place of every row (150 rows of 390 letters): some 80 million steps, 200 ms here, 16 ms allowed.
    const working = Array.from({ length: 30 }, (_, i) => ({ pattern: `[a-y]{1,${31 + i}}zQ` }));
    writeFileSync(path.join(config, 'madohub', 'rules', 'claude.json'), JSON.stringify({ working }));
    const file = path.join(dir, 'letters.txt');
    writeFileSync(file, Array.from({ length: 150 }, (_, row) => `${row} zQ${'a'.repeat(390)}`).join('\n'));
    const r = spawnSync('node', [mado, 'detect', '--agent', 'claude', '--explain', file], {
      encoding: 'utf8',
      env: { ...process.env, XDG_CONFIG_HOME: config },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout, r.stderr).toMatch(/^decided: no rule matched/m);
    expect(r.stderr).toMatch(
      /^mado detect: .*claude\.json: turned off: its rules took \d+ ms of matching within a second \(16 ms at most\); save the file again to turn them on$/m,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
  it('an unreadable path (a folder) is exit 2', () => {
    const r = spawnSync('node', [mado, 'detect', dir], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot read/);
  });
});
