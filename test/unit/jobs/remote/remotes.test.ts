// The hosts a Neovim follows: a host whose link failed is tried again after its wait, or at once
// when asked (`retry`, :MadoHosts retry); one up, or being tried, is left as it is.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Remotes } from '../../../../src/jobs/remote/remotes.js';
import { holds, until } from '../../../helpers/wait.js';

const quiet = { debug: (): void => undefined };

describe('Remotes: tries again', () => {
  let remotes: Remotes | undefined;
  afterEach(() => remotes?.stop());

  it('a host refused waits its turn (a minute here); retry tries it at once, and names it; a host not known is not tried', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-remotes-'));
    const tries = path.join(dir, 'tries');
    const count = (): number => (existsSync(tries) ? readFileSync(tries, 'utf8').length : 0);
    const statuses: string[] = [];
    remotes = new Remotes(
      process.env,
      (host) => statuses.push(`${host}:${remotes?.status(host)?.reason ?? ''}`),
      quiet,
      { minMs: 60_000, maxMs: 60_000, stableMs: 10_000 },
    );
    remotes.configure(
      new Map([
        [
          'box',
          { command: ['sh', '-c', `printf x >> '${tries}'; echo 'Connection refused' >&2; exit 255`], mado: 'mado' },
        ],
      ]),
    );
    expect(await until(() => count() === 1 && (remotes?.status('box')?.reason ?? '') !== '')).toBe(true);
    expect(remotes.status('box')).toMatchObject({
      online: false,
      reason: expect.stringContaining('Connection refused'),
    });
    expect(remotes.retry('nope')).toEqual([]);
    expect(remotes.retry()).toEqual(['box']);
    // Being tried: not tried twice.
    expect(remotes.retry('box')).toEqual([]);
    expect(await until(() => count() === 2)).toBe(true);
    expect(await until(() => remotes?.retry('box').length === 1)).toBe(true);
    expect(await until(() => count() === 3)).toBe(true);
  });

  it('a bridge that drops right after its hello is tried ever less often: the waits begin again only after a link stayed up', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-remotes-'));
    const tries = path.join(dir, 'tries');
    const count = (): number => (existsSync(tries) ? readFileSync(tries, 'utf8').length : 0);
    remotes = new Remotes(process.env, () => undefined, quiet, { minMs: 100, maxMs: 3200, stableMs: 60_000 });
    const bridge = path.join(__dirname, '../../../fixtures/bin/hostile-bridge');
    remotes.configure(
      new Map([
        [
          'box',
          {
            command: ['sh', '-c', `printf x >> '${tries}'; exec '${process.execPath}' '${bridge}' drops`],
            mado: 'mado',
          },
        ],
      ]),
    );
    // Waits of 0.1, 0.2, 0.4, 0.8, 1.6 s after each drop (with each link's own life): 6 tries in some 3.5 s;
    // begun again at each hello, 0.1 s each, it would be tried some 15 times.
    expect(await until(() => count() >= 4, 8000)).toBe(true);
    expect(await holds(() => count() <= 6, 2500)).toBe(true);
  });
});
