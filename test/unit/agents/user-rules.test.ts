import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectScreen, explainScreen, RULESET, useUserRules, userRulesNow } from '../../../src/agents/index.js';
import {
  lineGate,
  loadUserRules,
  parseRulesFile,
  RECHECK_MS,
  rulesDir,
  UserRulesSource,
  withUserRules,
} from '../../../src/agents/user-rules.js';
import { explanationText } from '../../../src/detect/explain.js';
import type { Screen } from '../../../src/shared/types.js';
import { elapse } from '../../helpers/wait.js';

const folder = (): string => mkdtempSync(path.join(tmpdir(), 'madohub-rules-'));
const write = (dir: string, name: string, value: unknown): string => {
  const file = path.join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
};
const rule = '─'.repeat(60);
/** A Claude Code screen of a version whose approval uses words no built-in rule knows. */
const NEW_PROMPT: Screen = {
  title: '',
  lines: [
    '❯ add a test',
    '',
    '⏺ I will write test/a.test.ts.',
    '',
    'Shall I write test/a.test.ts — accept / reject',
    '',
    rule,
    '❯ ',
    rule,
    '  ? for shortcuts',
  ],
};

afterEach(() => useUserRules(undefined));

describe('a rule file', () => {
  it('gives rules for each state, tried before the built-in ones, named user/<agent>/<name>', () => {
    const { patch, errors } = parseRulesFile(
      'claude',
      '/x/claude.json',
      JSON.stringify({
        waiting: [
          'accept / reject',
          { pattern: '^Shall I .*\\?$', name: 'shall-i', ignoreCase: true },
          { words: ['Write', 'accept', 'reject'], name: 'in-order' },
        ],
        working: [{ text: 'Pondering', hint: true }],
        idle: ['Type here'],
        failed: ['Gave up'],
        completion: [{ pattern: '^Flew in \\d+s$' }],
        markers: ['Claude Next'],
      }),
    );
    expect(errors).toEqual([]);
    expect(patch.lines.map((r) => [r.name, r.state, r.hint === true, r.completion === true])).toEqual([
      ['user/claude/waiting-1', 'waiting', false, false],
      ['user/claude/shall-i', 'waiting', false, false],
      ['user/claude/in-order', 'waiting', false, false],
      ['user/claude/working-1', 'working', true, false],
      ['user/claude/idle-1', 'idle', false, false],
      ['user/claude/failed-1', 'failed', false, false],
      ['user/claude/completion-1', 'stopped', false, true],
    ]);
    expect(patch.lines[1]!.test.test('SHALL I run it?')).toBe(true);
    expect(patch.lines[0]!.test.test('Accept / Reject')).toBe(false); // A text is found as written, unless ignoreCase.
    expect(patch.lines[2]!.test.test('Write a.ts? accept or reject')).toBe(true);
    expect(patch.lines[2]!.test.test('reject or accept: Write a.ts?')).toBe(false); // In that order.
    expect(patch.markers[0]!.test('Welcome to Claude Next (1.0)')).toBe(true);
    expect(patch.lines.every((r) => r.origin === '/x/claude.json')).toBe(true);
  });

  it('refuses each bad entry with why, and keeps the good ones', () => {
    const { patch, errors } = parseRulesFile(
      'codex',
      '/x/codex.json',
      JSON.stringify({
        waiting: [
          'fine',
          '',
          { pattern: '(a+)+$' },
          { pattern: '(x)\\1' },
          { pattern: '[' },
          { text: 'a', pattern: 'b' },
          42,
          { text: 'x', color: 'red' },
          { text: 'y', name: 'Bad Name' },
        ],
        wating: ['typo'],
        idle: 'not a list',
        disable: ['codex/approval', 'No Such Thing!'],
      }),
    );
    expect(patch.lines.map((r) => r.name)).toEqual(['user/codex/waiting-1']);
    expect(patch.disable).toEqual(['codex/approval']);
    expect(errors).toEqual([
      '"waiting"[2]: an empty text matches every line; refused',
      '"waiting"[3]: pattern /(a+)+$/: a repeated group backtracks: repeat single characters or classes, or list the words; refused',
      '"waiting"[4]: pattern /(x)\\1/: backreferences are not taken; refused',
      expect.stringMatching(/^"waiting"\[5\]: pattern \/\[\/: not a valid pattern/),
      '"waiting"[6]: an entry has one of "text", "words" or "pattern"; refused',
      '"waiting"[7]: an entry is a text or an object with "text", "words" or "pattern"; refused',
      '"waiting"[8]: unknown field "color"; refused',
      '"waiting"[9]: "name" is lower-case letters, digits, . and - (40 at most); refused',
      expect.stringMatching(
        /^unknown key "wating" \(known: working, waiting, idle, failed, completion, markers, disable\)$/,
      ),
      '"idle" is a list',
      '"disable"[2]: a built-in rule\'s name, as --explain shows it',
    ]);
  });

  it('that is no JSON object is refused whole', () => {
    expect(parseRulesFile('claude', 'f', '{ nope').errors[0]).toMatch(/^not JSON \(.*\): nothing in it is used$/);
    expect(parseRulesFile('claude', 'f', '[1]').errors).toEqual(['not a JSON object: nothing in it is used']);
  });

  it('is quoted in its errors with no control character: an OSC 52 clipboard write, an OSC 0 title, a BEL, a right-to-left override', () => {
    const hostile = '\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\u202e';
    const errors = [
      ...parseRulesFile(
        'claude',
        'f',
        `{ "waiting": [{ "pattern": "${hostile.replace(/\x1b/g, '\\u001b').replace(/\x07/g, '\\u0007')}(" }] }`,
      ).errors,
      ...parseRulesFile('claude', 'f', `${hostile} not JSON`).errors,
      ...parseRulesFile('claude', 'f', JSON.stringify({ [hostile]: [] })).errors,
    ];
    expect(errors).toHaveLength(3);
    for (const e of errors) expect(e).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e]/);
  });

  it('takes at most 32 entries a file, 2 patterns with a repeat that backtracks, and a taken name once', () => {
    const { patch, errors } = parseRulesFile(
      'claude',
      'f',
      JSON.stringify({
        waiting: [
          { text: 'a', name: 'x' },
          { text: 'b', name: 'x' },
        ],
        idle: Array.from({ length: 40 }, (_, i) => `w${i}`),
        failed: ['z'],
      }),
    );
    expect(patch.lines.filter((r) => r.state === 'idle')).toHaveLength(30);
    expect(errors).toEqual([
      '"waiting"[2]: the name user/claude/x is taken; refused',
      '"idle": 40 entries, 30 used (32 in a file at most)',
      '"failed": 1 entries, 0 used (32 in a file at most)',
    ]);
    const costly = parseRulesFile(
      'claude',
      'f',
      JSON.stringify({
        working: Array.from({ length: 10 }, (_, i) => ({ pattern: `^.*x${i}` })),
        idle: [{ pattern: '^\\s*ok\\d+$' }],
      }),
    );
    expect(costly.patch.lines).toHaveLength(3); // 2 costly ones and the linear one.
    expect(costly.errors).toEqual(
      [3, 4, 5, 6, 7, 8, 9, 10].map(
        (n) =>
          `"working"[${n}]: more than 2 patterns in a file with a repeat that can backtrack (they cost every row); refused`,
      ),
    );
  });
  it('"words" are 2 to 8 texts; a marker is a text or a pattern', () => {
    const { errors } = parseRulesFile(
      'claude',
      'f',
      JSON.stringify({ waiting: [{ words: ['one'] }, { words: ['a', ''] }], markers: [{ words: ['a', 'b'] }] }),
    );
    expect(errors).toEqual([
      '"waiting"[1]: "words" is a list of 2 to 8 texts, found in that order; refused',
      '"waiting"[2]: "words": an empty text matches every line; refused',
      '"markers"[1]: a marker is a text or a pattern; refused',
    ]);
  });
});

describe("a file's rules asked of a line together", () => {
  it('one gate passes a line that any rule of the file may match (its pattern, its text, its first word), in its case', () => {
    const gate = lineGate([
      { source: '^Zq\\d+$', ignoreCase: false },
      { source: 'needs you', ignoreCase: true },
      { source: 'x', ignoreCase: false },
    ]);
    expect(gate('Zq12')).toBe(true);
    expect(gate('zq12')).toBe(false);
    expect(gate('The agent NEEDS YOU now')).toBe(true);
    expect(gate('a box')).toBe(true);
    expect(gate('A BOX')).toBe(false);
    expect(gate('nothing here')).toBe(false);
    // A group name twice: one alternation where the Node takes it (24), else each rule alone (20);
    // either way, no line a rule matches is kept from it.
    const twice = lineGate([
      { source: '(?<v>a)', ignoreCase: false },
      { source: '(?<v>b)', ignoreCase: false },
    ]);
    expect([twice('a'), twice('b')]).toEqual([true, true]);
  });

  it('changes nothing a rule decides: each entry kind still matches its lines, and only them', () => {
    const { patch, errors } = parseRulesFile(
      'claude',
      'claude.json',
      JSON.stringify({
        waiting: [
          { pattern: '^Zq\\d+$', name: 'zq' },
          { text: 'Needs You', ignoreCase: true, name: 'needs' },
          { words: ['keep', 'going?'], name: 'keep' },
        ],
        working: [
          { pattern: '(?<n>Busy)', name: 'busy' },
          { pattern: '(?<n>Churning)', name: 'churn' },
        ],
      }),
    );
    expect(errors).toEqual([]);
    const decided = (line: string): string | undefined => patch.lines.find((r) => r.test.test(line))?.name;
    expect(decided('Zq7')).toBe('user/claude/zq');
    expect(decided('xZq7')).toBeUndefined();
    expect(decided('the agent needs you')).toBe('user/claude/needs');
    expect(decided('keep it going? yes')).toBe('user/claude/keep');
    expect(decided('going? keep')).toBeUndefined();
    expect(decided('Churning along')).toBe('user/claude/churn');
    expect(decided('plain text')).toBeUndefined();
  });
});

describe('the rules folder', () => {
  it('is $XDG_CONFIG_HOME/madohub/rules, else ~/.config/madohub/rules', () => {
    expect(rulesDir({ XDG_CONFIG_HOME: '/c' })).toBe('/c/madohub/rules');
    expect(rulesDir({ HOME: '/h' })).toBe('/h/.config/madohub/rules');
  });
  it('missing: no rules, no error', () => {
    expect(loadUserRules(path.join(folder(), 'none'))).toMatchObject({ patches: [], files: [] });
  });
  it('reads <agent>.json for each agent; names a file of no agent, a FIFO, a huge file, without hanging', () => {
    const dir = folder();
    write(dir, 'claude.json', { waiting: ['accept / reject'] });
    write(dir, 'vim.json', { waiting: ['x'] });
    write(dir, 'codex.json', 'x'.repeat(70 * 1024));
    execFileSync('mkfifo', [path.join(dir, 'gemini.json')]);
    write(dir, 'notes.txt', 'not read');
    const u = loadUserRules(dir);
    expect(u.patches.map((p) => p.agent)).toEqual(['claude']);
    expect(u.files).toEqual([
      { file: path.join(dir, 'claude.json'), agent: 'claude', rules: 1, errors: [] },
      {
        file: path.join(dir, 'codex.json'),
        agent: 'codex',
        rules: 0,
        errors: ['cannot read it: larger than 64 KiB (70 KiB)'],
      },
      {
        file: path.join(dir, 'gemini.json'),
        agent: 'gemini',
        rules: 0,
        errors: ['cannot read it: not a regular file'],
      },
      {
        file: path.join(dir, 'vim.json'),
        rules: 0,
        errors: [expect.stringMatching(/^no agent is named vim \(the file's name is the agent's: .*claude.*\)$/)],
      },
    ]);
  });
  it('whose rules spend more than a frame a second matching is turned off, said in its errors, and matches nothing more', () => {
    // A clock of the test's: each reading of it is 5 ms later (a slow rule, on a loaded machine).
    let now = 0;
    const clock = (): number => (now += 5);
    const { patch, errors } = parseRulesFile('claude', 'f', JSON.stringify({ waiting: ['accept / reject'] }), clock);
    const rule = patch.lines[0]!;
    expect(rule.test.test('Shall I — accept / reject')).toBe(true);
    expect(errors).toEqual([]);
    // Each line costs 5 ms (the gate) + 5 ms (the rule) of the test's clock: the third is past 16 ms.
    rule.test.test('Shall I — accept / reject, again');
    expect(errors).toEqual([
      'turned off: its rules took 20 ms of matching within a second (16 ms at most); save the file again to turn them on',
    ]);
    expect(rule.test.test('Shall I — accept / reject')).toBe(false);
    expect(errors).toHaveLength(1);
    // Within budget (a second's window begins anew), a file's rules match as ever.
    let later = 0;
    const quick = parseRulesFile(
      'claude',
      'f',
      JSON.stringify({ waiting: ['accept / reject'] }),
      () => (later += 0.001),
    );
    for (let i = 0; i < 1000; i++) expect(quick.patch.lines[0]!.test.test(`accept / reject ${i}`)).toBe(true);
    expect(quick.errors).toEqual([]);
  });

  it('reads the agents’ own files first: stray .json files never crowd one out of the 32 read', () => {
    const dir = folder();
    for (let i = 0; i < 40; i++) write(dir, `a${String(i).padStart(2, '0')}.json`, {});
    write(dir, 'claude.json', { waiting: ['accept / reject'] });
    const u = loadUserRules(dir);
    expect(u.patches.map((p) => p.agent)).toEqual(['claude']);
    expect(u.files[0]).toEqual({ file: path.join(dir, 'claude.json'), agent: 'claude', rules: 1, errors: [] });
    expect(u.files.at(-1)).toEqual({ file: dir, rules: 0, errors: ['41 files: the first 32 are read'] });
  });

  it('reads a file linked in (as dotfile managers do)', () => {
    const dir = folder();
    const real = write(folder(), 'mine.json', { waiting: ['accept / reject'] });
    symlinkSync(real, path.join(dir, 'claude.json'));
    expect(loadUserRules(dir).files[0]).toMatchObject({ agent: 'claude', rules: 1, errors: [] });
  });
});

describe("the user's rules with the built-in ones", () => {
  it('win a line before the built-in rules; "disable" takes a built-in rule out; an unknown name is an error', () => {
    const dir = folder();
    write(dir, 'claude.json', { idle: ['? for shortcuts'], disable: ['claude/prompt', 'spinner', 'claude/nope'] });
    const u = loadUserRules(dir);
    const set = withUserRules(RULESET, u);
    const claude = set.agents.find((a) => a.id === 'claude')!;
    expect(claude.lines[0]!.name).toBe('user/claude/idle-1');
    expect(claude.lines.some((r) => r.name === 'claude/prompt' || r.name === 'claude/spinner')).toBe(false);
    expect(u.files[0]!.errors).toEqual([
      '"disable": no rule of claude is named claude/nope (mado detect --explain names them)',
    ]);
    // Other agents keep theirs.
    expect(set.agents.find((a) => a.id === 'codex')).toBe(RULESET.agents.find((a) => a.id === 'codex'));
  });

  it("mend a new version's prompt: Idle before, Waiting with the rule, and --explain names the rule and its file", () => {
    expect(detectScreen(NEW_PROMPT, undefined, 'claude').state).toBe('idle');
    const dir = folder();
    const file = write(dir, 'claude.json', { waiting: [{ text: 'accept / reject', name: 'accept-reject' }] });
    useUserRules(dir);
    expect(detectScreen(NEW_PROMPT, undefined, 'claude')).toMatchObject({
      state: 'waiting',
      rule: 'user/claude/accept-reject',
    });
    const e = explainScreen(NEW_PROMPT, undefined, 'claude');
    expect(e.decided).toMatchObject({ by: 'rule', rule: 'user/claude/accept-reject', origin: file });
    expect(explanationText(e)).toContain(`         (your rule, from ${file})`);
  });

  it('markers name the agent from the screen alone', () => {
    const dir = folder();
    write(dir, 'gemini.json', { markers: ['Gemini Next'] });
    const screen: Screen = { title: '', lines: ['Gemini Next 2.0 ready'] };
    expect(detectScreen(screen).agent).toBe('shell');
    useUserRules(dir);
    expect(detectScreen(screen).agent).toBe('gemini');
  });
});

describe('reading the folder again', () => {
  it('when a file changes, looked at no more than once a RECHECK_MS; each reading heard once', () => {
    const dir = folder();
    let now = 0;
    const heard: number[] = [];
    const source = new UserRulesSource(
      dir,
      (u) => heard.push(u.patches.length),
      () => now,
    );
    expect(source.current().patches).toHaveLength(0);
    mkdirSync(dir, { recursive: true });
    write(dir, 'claude.json', { waiting: ['a'] });
    now += RECHECK_MS - 1;
    expect(source.current().patches).toHaveLength(0); // Not looked at yet.
    now += 1;
    expect(source.current().patches).toHaveLength(1);
    now += RECHECK_MS;
    source.current(); // Unchanged: not read again.
    write(dir, 'claude.json', { waiting: ['a', 'bb'] });
    now += RECHECK_MS;
    expect(source.current().patches[0]!.lines).toHaveLength(2);
    rmSync(path.join(dir, 'claude.json'));
    now += RECHECK_MS;
    expect(source.current().patches).toHaveLength(0);
    expect(heard).toEqual([0, 1, 1, 0]);
  });

  it('in use, a change shows in the next reading of a screen', async () => {
    const dir = folder();
    useUserRules(dir);
    expect(detectScreen(NEW_PROMPT, undefined, 'claude').state).toBe('idle');
    write(dir, 'claude.json', { waiting: ['accept / reject'] });
    // Looked at again once its recheck time has passed.
    await elapse(RECHECK_MS + 50);
    expect(detectScreen(NEW_PROMPT, undefined, 'claude').state).toBe('waiting');
    expect(userRulesNow()?.files).toHaveLength(1);
  });
});
