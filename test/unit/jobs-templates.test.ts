import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandLine, DEFAULT_TEMPLATES, jobEnv, loadTemplates, pickTemplate } from '../../src/jobs/templates.js';

describe('templates', () => {
  const claude = DEFAULT_TEMPLATES.claude!;
  const codex = DEFAULT_TEMPLATES.codex!;
  it('command lines: prompt, resume, continue, fork', () => {
    expect(commandLine(claude, 'fix it', undefined, false)).toEqual(['claude', 'fix it']);
    expect(commandLine(claude, 'fix it', undefined, false, 'S-1')).toEqual(['claude', '--session-id', 'S-1', 'fix it']);
    expect(commandLine(claude, '', { mode: 'id', id: 'abc' }, false, 'S-1')).toEqual(['claude', '--resume', 'abc']);
    expect(commandLine(codex, 'go', undefined, false, 'S-1')).toEqual(['codex', 'go']);
    expect(commandLine(claude, '', { mode: 'id', id: 'abc' }, true)).toEqual(['claude', '--resume', 'abc', '--fork-session']);
    expect(commandLine(claude, 'more', { mode: 'continue' }, false)).toEqual(['claude', '--continue', 'more']);
    expect(commandLine(codex, '', { mode: 'id', id: 'r1' }, false)).toEqual(['codex', 'resume', 'r1']);
    expect(commandLine(DEFAULT_TEMPLATES.gemini!, 'typed later', undefined, false)).toEqual(['gemini']);
  });
  it('an unknown agent warns and uses the default template', () => {
    const { template, warning } = pickTemplate(DEFAULT_TEMPLATES, 'cursor');
    expect(template.name).toBe('claude');
    expect(warning).toMatch(/^unknown agent 'cursor' \(known: claude, codex, gemini, opencode, amp, shell\); using claude$/);
    expect(pickTemplate(DEFAULT_TEMPLATES, 'codex')).toEqual({ template: codex });
  });
  it('a templates file adds and overrides; a broken one warns', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-tpl-'));
    const file = path.join(dir, 't.json');
    writeFileSync(file, JSON.stringify({ fixture: { command: ['node', 'agent.cjs'], prompt: 'type' }, bad: { command: 'x' } }));
    const { templates, warnings } = loadTemplates({ MADOHUB_TEMPLATES: file });
    expect(templates.fixture).toMatchObject({ name: 'fixture', command: ['node', 'agent.cjs'], prompt: 'type' });
    expect(templates.claude).toBeDefined();
    expect(warnings).toEqual([`${file}: template 'bad' needs a command (a list of strings); skipped`]);
    writeFileSync(file, '{');
    expect(loadTemplates({ MADOHUB_TEMPLATES: file }).warnings).toEqual([`${file} is not JSON; the default templates serve`]);
  });
  it('a template may ask for worktree isolation; another value warns and is not kept', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-tpl-')), 't.json');
    writeFileSync(file, JSON.stringify({ iso: { command: ['claude'], isolation: 'worktree' }, odd: { command: ['claude'], isolation: 'remote' } }));
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
      'ANTHROPIC_API_KEY', 'CODEX_HOME', 'HOME', 'HTTPS_PROXY', 'LANG', 'LC_ALL', 'NODE_EXTRA_CA_CERTS', 'PATH', 'TERM',
    ]);
  });
  it('MADOHUB_JOB_ENV adds names and prefixes', () => {
    const env = jobEnv({ MADOHUB_JOB_ENV: 'MY_TOKEN, AWS_*', MY_TOKEN: 't', AWS_REGION: 'r', OTHER: 'no' });
    expect(env).toEqual({ MY_TOKEN: 't', AWS_REGION: 'r' });
  });
});
