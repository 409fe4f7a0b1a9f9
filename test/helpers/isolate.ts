// Every test file's processes keep their state in a throwaway folder unless the test names one: a
// test that starts a job or a terminal without its own XDG_STATE_HOME must not write into the
// developer's ~/.local/state (the review's checkpoints of every turn go there).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll } from 'vitest';

if (!process.env.XDG_STATE_HOME?.startsWith(tmpdir())) {
  const state = mkdtempSync(path.join(tmpdir(), 'madohub-test-state-'));
  process.env.XDG_STATE_HOME = state;
  afterAll(() => rmSync(state, { recursive: true, force: true, maxRetries: 3 }));
}
