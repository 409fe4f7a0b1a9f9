// Every agent's knowledge in its module: the registry lists every module of src/agents/, each once,
// and each module is whole.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  AGENT_MODULES,
  agentModule,
  DEFAULT_AGENT,
  FALLBACK_AGENT,
  lastAnswer,
  menuKeys,
  RULESET,
} from '../../../src/agents/index.js';
import screens from '../../fixtures/screens.json';
import { DEFAULT_TEMPLATES } from '../../../src/jobs/templates.js';
import { agentRegistry } from '../../../scripts/agent-registry.mjs';
import { withAgentList } from '../../../scripts/doc-agents.js';

describe('agent modules', () => {
  it('are every module of src/agents/, each once, as the build writes the registry', () => {
    const dir = path.join(__dirname, '../../../src/agents');
    expect(readFileSync(path.join(dir, 'registry.ts'), 'utf8')).toBe(agentRegistry(dir));
    const ids = AGENT_MODULES.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Each file of the folder that exports an AgentModule, by file name (no list of agents here).
    const files = readdirSync(dir).filter(
      (f) => f.endsWith('.ts') && /^export const \w+: AgentModule = \{$/m.test(readFileSync(path.join(dir, f), 'utf8')),
    );
    expect(ids).toEqual(files.map((f) => f.replace(/\.ts$/, '')).sort());
    expect(ids).toEqual(expect.arrayContaining(['amp', 'claude', 'codex', 'gemini', 'opencode', 'shell']));
  });

  it('are named nowhere else: no agent id is written in src/ or lua/ outside its own module', () => {
    const root = path.join(__dirname, '../../..');
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(path.join(dir, e.name)) : /\.(ts|lua)$/.test(e.name) ? [path.join(dir, e.name)] : [],
      );
    const all = [...files(path.join(root, 'src')), ...files(path.join(root, 'lua'))];
    // The fallback's id is also a job's origin (`origin: 'shell'`, a job started from a shell): it is left out.
    const found: string[] = [];
    for (const { id } of AGENT_MODULES.filter((a) => a.id !== FALLBACK_AGENT)) {
      const own = path.join(root, 'src/agents', `${id}.ts`);
      const quoted = new RegExp(`['"\`]${id}['"\`]`);
      for (const f of all) {
        if (f === own || f.endsWith(path.join('src/agents/registry.ts'))) continue;
        // Its code: comments may speak of an agent by name.
        const code = readFileSync(f, 'utf8')
          .split('\n')
          .filter((l) => !/^\s*(\/\/|\/\*|\*|--)/.test(l));
        if (code.some((l) => quoted.test(l))) found.push(`${path.relative(root, f)}: '${id}'`);
      }
    }
    expect(found).toEqual([]);
  });

  it("are the doc's list of agents, as the build writes it", () => {
    const doc = readFileSync(path.join(__dirname, '../../../doc/madohub.txt'), 'utf8');
    expect(withAgentList(doc)).toBe(doc);
    expect(doc).toMatch(/^ {4}`codex` {5}Codex +`codex` {5}records$/m);
    // Its columns line up whatever a name's length: each row's program starts at one column.
    const list = doc.slice(doc.indexOf('*madohub-known-agents*'), doc.indexOf('(This list is written by the build'));
    const rows = list.split('\n').filter((l) => /^ {4}`[a-z]+` /.test(l));
    expect(rows.length).toBe(AGENT_MODULES.length);
    const programAt = (row: string): number => row.indexOf('`', row.indexOf('`', row.indexOf('`', 4) + 1) + 1);
    expect(new Set(rows.map(programAt)).size).toBe(1);
  });

  it('have one fallback agent (the shell) and one default agent', () => {
    expect(FALLBACK_AGENT).toBe('shell');
    expect(DEFAULT_AGENT).toBe('claude');
    expect(agentModule('no-such-agent').id).toBe(FALLBACK_AGENT);
    expect(Object.keys(DEFAULT_TEMPLATES)[0]).toBe(DEFAULT_AGENT);
  });

  it.each(AGENT_MODULES.map((a) => [a.id, a] as const))(
    '%s: screen rules of its own id, a display name, a template, its variables',
    (id, a) => {
      expect(a.screen.id).toBe(id);
      expect(a.displayName).not.toBe('');
      expect(a.template.command.length).toBeGreaterThan(0);
      expect(DEFAULT_TEMPLATES[id]).toMatchObject({ name: id, command: a.template.command });
      for (const p of a.env.prefixes) expect(p).toMatch(/^[A-Z][A-Z0-9_]*$/);
      if (id !== 'shell') expect(a.process?.names.length).toBeGreaterThan(0);
      expect(agentModule(id)).toBe(a);
    },
  );

  it('give the detectors their rules and the Lua side its names', () => {
    // Every agent but the fallback has screen rules, in the registry's order; each its own name.
    expect(RULESET.agents.map((r) => r.id)).toEqual(AGENT_MODULES.filter((a) => !a.fallback).map((a) => a.id));
    expect(RULESET.fallback).toBe('shell');
    expect(AGENT_MODULES.find((a) => a.id === 'claude')?.displayName).toBe('Claude Code');
    expect(new Set(AGENT_MODULES.map((a) => a.displayName)).size).toBe(AGENT_MODULES.length);
  });
  it('name each rule once among their own, as `<agent>/<name>` or `shared/<name>` (what --explain and mado detect say)', () => {
    for (const rules of RULESET.agents) {
      const names = [...rules.lines, ...rules.titles].map((r) => r.name);
      expect(new Set(names).size, rules.id).toBe(names.length);
      for (const name of names)
        expect(name, rules.id).toMatch(new RegExp(`^(?:${rules.id}|shared)/[a-z0-9][a-z0-9.-]*$`));
    }
  });
});

const records = (file: string): unknown[] =>
  readFileSync(path.join(__dirname, '../../fixtures/records', file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
/** The captured Claude Code session up to its last prompt, which had no answer yet ("one more"). */
const answeredTranscript = (): unknown[] => {
  const all = records('claude-transcript.jsonl');
  return all.slice(
    0,
    all.findIndex((r) => JSON.stringify(r).includes('"one more"')),
  );
};

describe('what an agent module knows of answers and menus', () => {
  it('reads the last finished answer from the real records of Claude Code and Codex', () => {
    expect(lastAnswer('claude', answeredTranscript())?.text).toBe('Hello! How can I help?');
    expect(lastAnswer('claude', records('claude-transcript.jsonl'))).toBeUndefined();
    expect(lastAnswer('codex', records('codex-rollout.jsonl'))?.text).toBe('The tests ran.');
    // A turn that ended in a tool call is no answer; an agent without records has none.
    expect(lastAnswer('claude', records('claude-transcript.jsonl').slice(0, 5))).toBeUndefined();
    expect(lastAnswer('gemini', records('codex-rollout.jsonl'))).toBeUndefined();
    // Gemini CLI 0.61's chats: the model's last text after the user's last prompt (tool results are none).
    expect(lastAnswer('gemini', records('gemini-chat.jsonl'))?.text).toBe(
      'Hello from the mock. The parser looks fine.',
    );
    const tools = records('gemini-chat-tools.jsonl');
    const afterEdit = tools.findIndex((r) => JSON.stringify(r).includes('"tell a long story"'));
    expect(lastAnswer('gemini', tools.slice(0, afterEdit))?.text).toBe('Done: the change is made.');
    // The cancelled turn and the failing one have no answer of their own.
    expect(lastAnswer('gemini', tools.slice(0, afterEdit + 1))).toBeUndefined();
    expect(lastAnswer('gemini', tools)).toBeUndefined();
    expect(lastAnswer('gemini', records('gemini-chat-error.jsonl'))).toBeUndefined();
    expect(
      lastAnswer('claude', [null, 7, 'x', { type: 'assistant', message: { stop_reason: 'end_turn', content: 'no' } }]),
    ).toBeUndefined();
  });

  it("the answer is the last prompt's, with that prompt's time: a turn whose answer has not landed has none (not the turn before's)", () => {
    const transcript = answeredTranscript();
    const lastPrompt = [...transcript]
      .reverse()
      .find(
        (r) =>
          (r as { type?: string; message?: { content?: unknown } }).type === 'user' &&
          typeof (r as { message: { content: unknown } }).message.content === 'string',
      ) as { timestamp: string };
    expect(lastAnswer('claude', transcript)).toEqual({
      text: 'Hello! How can I help?',
      promptAt: Date.parse(lastPrompt.timestamp),
    });
    // The next prompt is recorded, its answer not yet: the one before is no answer of it.
    const next = {
      type: 'user',
      isSidechain: false,
      message: { role: 'user', content: 'and now?' },
      timestamp: '2026-11-29T21:06:00.000Z',
    };
    expect(lastAnswer('claude', [...transcript, next])).toBeUndefined();
    // A tool's result (a `user` record too) is no prompt.
    const toolResult = {
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] },
    };
    expect(lastAnswer('claude', [...transcript, toolResult])?.text).toBe('Hello! How can I help?');
    // Codex 0.171.0: the first turn answered; the last one failed (its task_complete has no message): none.
    const rollout = records('codex-rollout-0.171.jsonl');
    const first = rollout.slice(0, rollout.findIndex((r) => JSON.stringify(r).includes('"task_complete"')) + 1);
    const started = first.find((r) => JSON.stringify(r).includes('"task_started"')) as { timestamp: string };
    expect(lastAnswer('codex', first)).toEqual({
      text: 'Done: the change is made.',
      promptAt: Date.parse(started.timestamp),
    });
    expect(lastAnswer('codex', rollout)).toBeUndefined();
    expect(
      lastAnswer('codex', [
        ...first,
        { timestamp: '2026-11-30T12:00:00.000Z', type: 'event_msg', payload: { type: 'task_started' } },
      ]),
    ).toBeUndefined();
  });

  it("answers Claude Code's menu with the arrow keys and Enter, from the highlighted choice", () => {
    const approval = screens['claude-real-approval'].lines;
    expect(menuKeys('claude', approval, 1)).toEqual({ keys: '\r' });
    expect(menuKeys('claude', approval, 3)).toEqual({ keys: '\x1b[B\x1b[B\r' });
    const moved = approval.map((l) => l.replace('❯ 1. Yes', '  1. Yes').replace('  3. No', '❯ 3. No'));
    expect(menuKeys('claude', moved, 1)).toEqual({ keys: '\x1b[A\x1b[A\r' });
    expect(menuKeys('claude', approval, 4)).toEqual({ error: 'choose 1 to 3' });
    expect(menuKeys('claude', screens['claude-idle'].lines, 1)).toEqual({
      error: 'no menu on the screen',
      noMenu: true,
    });
  });

  it("answers Codex's and Gemini CLI's menus with the choice's digit (tried on their real approvals)", () => {
    expect(menuKeys('codex', screens['codex-real-patch-approval'].lines, 3)).toEqual({ keys: '3' });
    expect(menuKeys('codex', screens['codex-real-model-prompt'].lines, 2)).toEqual({ keys: '2' });
    expect(menuKeys('codex', screens['codex-real-patch-approval'].lines, 4)).toEqual({ error: 'choose 1 to 3' });
    expect(menuKeys('gemini', screens['gemini-real-approval'].lines, 2)).toEqual({ keys: '2' });
    expect(menuKeys('gemini', screens['gemini-real-edit-approval'].lines, 4)).toEqual({ keys: '4' });
    // OpenCode's permission (`Allow once   Allow always   Reject`, no numbers) and Amp's: not known.
    expect(menuKeys('opencode', screens['opencode-real-shell-approval'].lines, 1)).toEqual({
      error: "how OpenCode's menus are answered is not known; attach to it",
    });
  });
});
