// `mado agents` prints each job's state in the words the help's list gives (|madohub-state-words|),
// beside the STATUS that list names for it; the list itself is the one the build writes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { everyJobKind, STATES_END, withStateWords } from '../../../scripts/doc-agents.js';
import { jobTable } from '../../../src/fleet/job-table.js';
import type { ListedJob } from '../../../src/jobs/protocol/replies.js';
import { blankJob } from '../../../src/jobs/store.js';
import { AGENT_STATES } from '../../../src/shared/types.js';

const doc = readFileSync(path.join(__dirname, '../../../doc/madohub.txt'), 'utf8');

/** The help's list: each state word with the STATUS words it names. */
function helpStates(): Map<string, string[]> {
  const lines = doc.split('\n');
  const from = lines.findIndex((l) => l.trim() === '*madohub-state-words*');
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(from, lines.indexOf(STATES_END, from))) {
    const m = /^ {4}`([a-z]+)` +.+? {2,}((?:`[a-z]+` ?)+)$/.exec(line);
    if (m)
      rows.set(
        m[1]!,
        [...m[2]!.matchAll(/`([a-z]+)`/g)].map((w) => w[1]!),
      );
  }
  return rows;
}

describe('mado agents: the state words', () => {
  it("the help's list is the one the build writes, and names every state", () => {
    expect(withStateWords(doc)).toBe(doc);
    expect([...helpStates().keys()]).toEqual(AGENT_STATES);
  });

  it("prints every job's STATUS and STATE as the help's list names them", () => {
    const listed = helpStates();
    const seen = new Set<string>();
    for (const kind of everyJobKind()) {
      const job: ListedJob = { ...blankJob('3fa2c1d0', 1000), ...kind, name: 'n', cwd: '/p' };
      const row = jobTable([job], 2000).split('\n')[1]!;
      const m = /^3fa2c1d0 {2}(\S+) +(\S+)( ✓)? /.exec(row);
      expect(m, row).not.toBeNull();
      const [, printedStatus, printedState] = m!;
      expect(listed.get(printedState!), row).toContain(printedStatus);
      seen.add(printedState!);
    }
    // Every state a job can be in is one the help gives (a terminal's states are the same words).
    expect([...seen].every((s) => listed.has(s))).toBe(true);
  });
});
