// `send` and `respawn` as operations: their command lines, their arguments refused before they act,
// their results said and a foreign one refused.
import { describe, expect, it } from 'vitest';
import { quietIo } from '../../../src/jobs/client/daemon.js';
import { respawn } from '../../../src/ops/respawn.js';
import { send } from '../../../src/ops/send.js';
import { JobError, UsageError } from '../../../src/shared/errors.js';

const io = quietIo({ MADOHUB_JOBS_DIR: '/nonexistent/madohub-jobs' }, '/nonexistent/mado');

describe('the send operation', () => {
  it('takes the words after the id as its text (none: standard input), and waits for menus', () => {
    expect(send.fromArgv(['fix', 'go', 'on'])).toEqual({ id: 'fix', text: 'go on', waitMenus: true });
    expect(send.fromArgv(['fix'])).toEqual({ id: 'fix', waitMenus: true });
    expect(() => send.fromArgv([])).toThrow(UsageError);
    expect(() => send.fromArgv(['--now', 'fix'])).toThrow(UsageError);
  });

  it('is a person’s words (it ends a chain of routed text); refuses arguments that are none first', async () => {
    expect(send.byPerson).toBe(true);
    expect(respawn.byPerson).toBe(false);
    await expect(send.run({ io }, { id: 'x', text: 7 })).rejects.toThrow("field 'text' must be a string");
    await expect(send.run({ io }, { id: 'x', text: 'x'.repeat(121 * 1024) })).rejects.toThrow(UsageError);
    await expect(send.run({ io }, { id: 'x', text: 'hi', waitMenus: 'yes' })).rejects.toThrow("field 'waitMenus'");
  });

  it('says why a reply waits, each way, and refuses a word that is none of its', () => {
    expect(send.show({ short: '0123abcd', pending: '' })).toBe('sent to 0123abcd\n');
    expect(send.show({ short: '0123abcd', pending: 'queued' })).toBe('queued for 0123abcd: sent when its turn ends\n');
    expect(send.show({ short: '0123abcd', pending: 'held-menu' })).toContain('mado answer 0123abcd N');
    expect(send.show({ short: '0123abcd', pending: 'held-draft' })).toBe(
      'held: draft for 0123abcd: sent once its input line is empty\n',
    );
    // An older host says its words: read as their codes.
    expect(send.show({ short: '0123abcd', pending: 'held: Terminal mode' })).toBe(
      'held: Terminal mode for 0123abcd: sent once its input line is empty\n',
    );
    expect(() => send.show({ short: '0123abcd', pending: 'sent, trust me' })).toThrow(JobError);
  });
});

describe('the respawn operation', () => {
  it('takes one ID; says it; refuses a foreign result', async () => {
    expect(respawn.fromArgv(['fix'])).toEqual({ id: 'fix' });
    expect(() => respawn.fromArgv(['--now', 'a'])).toThrow('unknown option --now');
    await expect(respawn.run({ io }, {})).rejects.toThrow("field 'id' is missing");
    expect(respawn.show({ short: '0123abcd' })).toBe('respawned 0123abcd\n');
    expect(() => respawn.show({ short: 'nope' })).toThrow(JobError);
  });
});
