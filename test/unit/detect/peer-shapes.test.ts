// The kinds of screens another fleet manager's detector suite holds that MadoHub read wrong
// (issue 32), written as screens of their shape (test/fixtures/screens/shapes/peer.json): each reads
// right told the agent, as that suite tells it; each is decided by a shape rule of the agent's.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectScreen } from '../../../src/agents/index.js';
import type { ScreenFixture } from '../agents/fixtures.js';

const shapes = Object.entries(
  JSON.parse(readFileSync(path.join(__dirname, '../../fixtures/screens/shapes/peer.json'), 'utf8')) as Record<
    string,
    ScreenFixture
  >,
);

describe("a peer suite's kinds of screens", () => {
  it.each(shapes)('%s reads right told the agent', (_name, s) => {
    const d = detectScreen({ lines: s.lines, title: s.title }, undefined, s.expect.agent);
    expect({ agent: d.agent, state: d.state }).toEqual(s.expect);
  });
});
