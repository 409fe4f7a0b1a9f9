// The fleet's ids: made and read by one codec, each kind told apart, anything else none.
import { describe, expect, it } from 'vitest';
import { AGENT_MODULES } from '../../../src/agents/index.js';
import {
  editorId,
  fileId,
  ID_KINDS,
  idIsOf,
  jobId,
  jobOf,
  localJobShort,
  parseFleetId,
  sessionId,
  termBuf,
  termId,
  bufId,
} from '../../../src/shared/fleet-id.js';
import { DAEMON_ENDS, NEOVIM_ENDS } from '../../../src/shared/route-check.js';

describe('the fleet’s ids', () => {
  it('each kind, made and read back', () => {
    expect(parseFleetId(termId(12))).toEqual({ kind: 'term', buf: 12 });
    expect(parseFleetId(jobId('0a1b2c3d'))).toEqual({ kind: 'job', short: '0a1b2c3d', host: '' });
    expect(parseFleetId(jobId('0a1b2c3d', 'dev.box-1'))).toEqual({ kind: 'job', short: '0a1b2c3d', host: 'dev.box-1' });
    expect(parseFleetId(sessionId('claude', '01234567-89ab-4def-8123-456789abcdef'))).toEqual({
      kind: 'session',
      agent: 'claude',
      session: '01234567-89ab-4def-8123-456789abcdef',
    });
    expect(parseFleetId(editorId(4242, 7))).toEqual({ kind: 'editor', pid: 4242, buf: 7 });
    expect(parseFleetId(bufId(3))).toEqual({ kind: 'buf', buf: 3 });
    expect(parseFleetId(fileId('/tmp/notes.md'))).toEqual({ kind: 'file', path: '/tmp/notes.md' });
    expect([
      termBuf('term:5'),
      termBuf('job:0a1b2c3d'),
      jobOf('job:box:0a1b2c3d'),
      localJobShort('job:box:0a1b2c3d'),
      localJobShort('job:0a1b2c3d'),
    ]).toEqual([5, undefined, { short: '0a1b2c3d', host: 'box' }, undefined, '0a1b2c3d']);
  });

  it('none of what is no id', () => {
    for (const id of [
      '',
      'term:',
      'term:x',
      'term:1234567890',
      'job:0A1B2C3D',
      'job:0a1b2c3',
      'job:0a1b2c3d0',
      'job:-box:0a1b2c3d',
      'job:a b:0a1b2c3d',
      'nvim:1',
      'buf:',
      'file:relative/path',
      'job:box:0a1b2c3d:x',
      'Claude:x',
      'claude:',
      `claude:${'x'.repeat(200)}`,
    ]) {
      expect(parseFleetId(id), id).toBeUndefined();
    }
  });

  it('no agent’s id is the word of another kind (a session’s id could not be told from it)', () => {
    for (const agent of AGENT_MODULES) expect(ID_KINDS as readonly string[]).not.toContain(agent.id);
  });

  it('a route’s ends: the daemon’s join jobs (to any host’s, or a file); a Neovim’s, terminals and buffers too', () => {
    expect(['job:0a1b2c3d', 'job:box:0a1b2c3d', 'term:1'].map((id) => idIsOf(id, DAEMON_ENDS.source))).toEqual([
      true,
      false,
      false,
    ]);
    expect(
      ['job:0a1b2c3d', 'job:box:0a1b2c3d', 'file:/x', 'buf:2', 'term:1'].map((id) => idIsOf(id, DAEMON_ENDS.target)),
    ).toEqual([true, true, true, false, false]);
    expect(['term:1', 'job:0a1b2c3d', 'job:box:0a1b2c3d', 'buf:2'].map((id) => idIsOf(id, NEOVIM_ENDS.source))).toEqual(
      [true, true, false, false],
    );
    expect(
      ['term:1', 'job:box:0a1b2c3d', 'buf:2', 'file:/x', 'nvim:1:2', 'claude:abc'].map((id) =>
        idIsOf(id, NEOVIM_ENDS.target),
      ),
    ).toEqual([true, true, true, true, false, false]);
  });
});
