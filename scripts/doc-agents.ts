// The list of agents in doc/madohub.txt (`*madohub-known-agents*`), written by `npm run build` from
// the agent modules, so that the doc names every agent the code knows and no other.
import { AGENT_MODULES, DEFAULT_AGENT, FALLBACK_AGENT } from '../src/agents/index.js';

export const BEGIN = '                                                       *madohub-known-agents*';
export const END = '(This list is written by the build from src/agents/.)';

const pad = (s: string, n: number): string => (s.length >= n ? `${s} ` : s.padEnd(n));

/** The lines of the list, from its tag line to its last line. */
export function agentList(): string[] {
  const rows = AGENT_MODULES.map((a) => {
    const what = [
      a.id === DEFAULT_AGENT ? 'default' : '',
      a.id === FALLBACK_AGENT ? 'fallback' : '',
      a.records ? 'records' : '',
      a.sessions ? 'sessions elsewhere' : '',
    ].filter((w) => w !== '');
    // The fallback's program is the user's login shell, whatever this machine's is.
    const program = a.fallback ? '$SHELL' : (a.template.command[0] ?? '');
    return `    ${pad(`\`${a.id}\``, 12)}${pad(a.displayName, 14)}${pad(`\`${program}\``, 12)}${what.join(', ')}`.trimEnd();
  });
  return [
    BEGIN,
    'The agents MadoHub knows, each one module (src/agents/<id>.ts): its id (in',
    '|madohub.state()|, `@agent`, `mado --bg --agent`), its name, the program its',
    'jobs run, and what more it has: the default agent, the fallback (what a',
    'terminal runs when no agent does), records that confirm its states',
    '(|madohub-confirmed|), sessions elsewhere that the picker lists.',
    '',
    ...rows,
    '',
    END,
  ];
}

/** `doc` with its list replaced by `lines`; throws when the doc has no list to replace. */
export function withAgentList(doc: string, lines: readonly string[] = agentList()): string {
  const all = doc.split('\n');
  const from = all.indexOf(BEGIN);
  const to = all.indexOf(END, from);
  if (from < 0 || to < 0) throw new Error('doc/madohub.txt has no *madohub-known-agents* list to write');
  return [...all.slice(0, from), ...lines, ...all.slice(to + 1)].join('\n');
}
