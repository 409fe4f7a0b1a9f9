import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_MODULES } from '../../../src/agents/index.js';
import { daemonEnv, jobEnv } from '../../../src/jobs/env.js';
import { commandLine, DEFAULT_TEMPLATES, loadTemplates, pickTemplate } from '../../../src/jobs/templates.js';

describe('templates', () => {
  const claude = DEFAULT_TEMPLATES.claude!;
  const codex = DEFAULT_TEMPLATES.codex!;
  it('command lines: prompt, resume, continue, fork', () => {
    expect(commandLine(claude, 'fix it', undefined, false)).toEqual(['claude', '--', 'fix it']);
    expect(commandLine(claude, 'fix it', undefined, false, 'S-1')).toEqual([
      'claude',
      '--session-id',
      'S-1',
      '--',
      'fix it',
    ]);
    // A prompt that looks like an option is still a prompt.
    expect(commandLine(claude, '--dangerously-skip-permissions', undefined, false)).toEqual([
      'claude',
      '--',
      '--dangerously-skip-permissions',
    ]);
    expect(commandLine(codex, '-c model=x', undefined, false)).toEqual(['codex', '--', '-c model=x']);
    expect(commandLine(claude, '', { mode: 'id', id: 'abc' }, false, 'S-1')).toEqual(['claude', '--resume', 'abc']);
    expect(commandLine(codex, 'go', undefined, false, 'S-1')).toEqual(['codex', '--', 'go']);
    expect(commandLine(claude, '', { mode: 'id', id: 'abc' }, true)).toEqual([
      'claude',
      '--resume',
      'abc',
      '--fork-session',
    ]);
    expect(commandLine(claude, 'more', { mode: 'continue' }, false)).toEqual(['claude', '--continue', '--', 'more']);
    expect(commandLine(codex, '', { mode: 'id', id: 'r1' }, false)).toEqual(['codex', 'resume', 'r1']);
    expect(commandLine(DEFAULT_TEMPLATES.gemini!, 'typed later', undefined, false)).toEqual(['gemini']);
  });
  it('an unknown agent is an error that names the known ones; none named is the default', () => {
    // The default first, then the others as registered.
    const known = ['claude', ...AGENT_MODULES.map((a) => a.id).filter((id) => id !== 'claude')];
    expect(pickTemplate(DEFAULT_TEMPLATES, 'cursor')).toEqual({
      error: `unknown agent 'cursor' (known: ${known.join(', ')})`,
    });
    expect(pickTemplate(DEFAULT_TEMPLATES, '__proto__')).toMatchObject({
      error: expect.stringMatching(/^unknown agent '__proto__'/),
    });
    expect(pickTemplate(DEFAULT_TEMPLATES, undefined)).toEqual({ template: claude });
    expect(pickTemplate(DEFAULT_TEMPLATES, 'codex')).toEqual({ template: codex });
  });
  it('a templates file adds and overrides; a broken one warns', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-tpl-'));
    const file = path.join(dir, 't.json');
    writeFileSync(
      file,
      JSON.stringify({
        fixture: { command: ['node', 'agent.cjs'], prompt: 'type', resume: 'no' },
        bad: { command: 'x' },
        nul: null,
        '../x': { command: ['x'] },
      }),
    );
    const { templates, warnings } = loadTemplates({ MADOHUB_TEMPLATES: file });
    expect(templates.fixture).toMatchObject({
      name: 'fixture',
      command: ['node', 'agent.cjs'],
      prompt: 'type',
      resume: undefined,
    });
    expect(templates.claude).toBeDefined();
    expect(warnings).toEqual([
      `${file}: template 'bad' needs a command (a list of strings); skipped`,
      `${file}: template 'nul' needs a command (a list of strings); skipped`,
      `${file}: '../x' is not a template name (letters, digits, - and _); skipped`,
    ]);
    writeFileSync(file, '{');
    expect(loadTemplates({ MADOHUB_TEMPLATES: file }).warnings).toEqual([
      `${file} is not a JSON object; the default templates serve`,
    ]);
    // A FIFO or a huge file in its place is refused without blocking.
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    expect(loadTemplates({ MADOHUB_TEMPLATES: path.join(dir, 'fifo') }).warnings).toEqual([
      `${path.join(dir, 'fifo')}: not a regular file; the default templates serve`,
    ]);
  });
  it('a template may ask for worktree isolation; another value warns and is not kept', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-tpl-')), 't.json');
    writeFileSync(
      file,
      JSON.stringify({
        iso: { command: ['claude'], isolation: 'worktree' },
        odd: { command: ['claude'], isolation: 'remote' },
      }),
    );
    const { templates, warnings } = loadTemplates({ MADOHUB_TEMPLATES: file });
    expect(templates.iso!.isolation).toBe('worktree');
    expect(templates.odd).toBeDefined();
    expect(templates.odd!.isolation).toBeUndefined();
    expect(warnings).toEqual([`${file}: template 'odd': isolation must be "worktree" or "none"; "none" serves`]);
  });
});

describe('job environment', () => {
  it('passes the whitelist only', () => {
    const env = jobEnv({
      PATH: '/bin',
      HOME: '/h',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      TERM: 'xterm',
      ANTHROPIC_API_KEY: 'k',
      CODEX_HOME: '/c',
      AWS_SECRET_ACCESS_KEY: 'no',
      NVIM: '/run/nvim.sock',
      MY_TOKEN: 'no',
      HTTPS_PROXY: 'http://proxy:3128',
      NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem',
      NODE_OPTIONS: 'no',
    });
    expect(Object.keys(env).sort()).toEqual([
      'ANTHROPIC_API_KEY',
      'CODEX_HOME',
      'HOME',
      'HTTPS_PROXY',
      'LANG',
      'LC_ALL',
      'NODE_EXTRA_CA_CERTS',
      'PATH',
      'TERM',
    ]);
  });
  it("the agents' own configuration variables pass (DISABLE_AUTOUPDATER, MCP_TIMEOUT, …)", () => {
    const env = jobEnv({
      DISABLE_AUTOUPDATER: '1',
      MCP_TIMEOUT: '9',
      BASH_DEFAULT_TIMEOUT_MS: '1',
      RUST_LOG: 'x',
      OPENCODE_CONFIG: 'c',
      AMP_API_KEY: 'a',
      GEMINI_API_KEY: 'g',
      RANDOM_THING: 'no',
    });
    expect(Object.keys(env).sort()).toEqual([
      'AMP_API_KEY',
      'BASH_DEFAULT_TIMEOUT_MS',
      'DISABLE_AUTOUPDATER',
      'GEMINI_API_KEY',
      'MCP_TIMEOUT',
      'OPENCODE_CONFIG',
      'RUST_LOG',
    ]);
  });
  it('the daemon gets no key and no token', () => {
    const env = daemonEnv({
      PATH: '/bin',
      HOME: '/h',
      XDG_CONFIG_HOME: '/c',
      MADOHUB_TEMPLATES: '/t',
      ANTHROPIC_API_KEY: 'k',
      OPENAI_API_KEY: 'o',
      CLAUDE_CODE_OAUTH_TOKEN: 't',
      NODE_EXTRA_CA_CERTS: '/ca',
    });
    expect(env).toEqual({
      PATH: '/bin',
      HOME: '/h',
      XDG_CONFIG_HOME: '/c',
      MADOHUB_TEMPLATES: '/t',
      // Its own setting: one malloc arena (its memory stays flat over dispatches; bench (v)).
      MALLOC_ARENA_MAX: '1',
    });
  });
  it('MADOHUB_JOB_ENV adds names and prefixes', () => {
    const env = jobEnv({ MADOHUB_JOB_ENV: 'MY_TOKEN, AWS_*', MY_TOKEN: 't', AWS_REGION: 'r', OTHER: 'no' });
    expect(env).toEqual({ MY_TOKEN: 't', AWS_REGION: 'r' });
  });
});
