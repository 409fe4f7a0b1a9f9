import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
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
    expect(parseDetectArgs(['a.txt', '--title', 'T'])).toEqual({ file: 'a.txt', title: 'T' });
    expect(parseDetectArgs(['--title=T'])).toEqual({ title: 'T' });
    expect(() => parseDetectArgs(['--title'])).toThrow(UsageError);
    expect(() => parseDetectArgs(['a', 'b'])).toThrow(UsageError);
    expect(() => parseDetectArgs(['--nope'])).toThrow(UsageError);
  });
  it('--agent reads the screen as that agent: an approval menu alone, with no footer that names Codex', () => {
    expect(parseDetectArgs(['--agent', 'codex'])).toEqual({ title: '', agent: 'codex' });
    expect(parseDetectArgs(['--agent=gemini', 'a.txt'])).toEqual({ title: '', agent: 'gemini', file: 'a.txt' });
    expect(() => parseDetectArgs(['--agent', 'vim'])).toThrow(`--agent vim is no agent (${AGENT_MODULES.map((a) => a.id).join(', ')})`);
    expect(() => parseDetectArgs(['--agent'])).toThrow('--agent needs a value');
    const menu = codexApproval.lines.slice(codexApproval.lines.findIndex((l) => l.includes('Would you like to run')));
    expect(JSON.parse(runDetect(['--agent', 'codex'], () => menu.join('\n')))).toMatchObject({ agent: 'codex', state: 'waiting' });
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
  it('an unreadable path (a folder) is exit 2', () => {
    const r = spawnSync('node', [mado, 'detect', dir], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot read/);
  });
});
