// A job on a remote host, reached through a link: a link that cannot be had is an offline target
// (nothing was handed over); a link lost while the text goes is no such thing (it may have arrived).
import { describe, expect, it } from 'vitest';
import { throughLink } from '../../../../src/jobs/remote/job-ops.js';
import type { Link } from '../../../../src/jobs/remote/link.js';
import { LinkError } from '../../../../src/jobs/remote/link.js';
import { TargetOffline } from '../../../../src/shared/errors.js';

describe('throughLink', () => {
  const link = {} as Link;
  it('no link to be had, thrown or refused: TargetOffline, and the text is not handed over', async () => {
    let handed = false;
    const send = async (): Promise<string> => {
      handed = true;
      return '';
    };
    await expect(
      throughLink(async () => {
        throw new LinkError('box is offline', 'closed');
      }, send),
    ).rejects.toBeInstanceOf(TargetOffline);
    await expect(throughLink(() => Promise.reject(new LinkError('refused', 'unreachable')), send)).rejects.toThrow(
      'refused',
    );
    expect(handed).toBe(false);
  });
  it('the link lost while the text goes, or another failure: said as it is', async () => {
    const lost = throughLink(
      async (fn) => fn(link),
      async () => {
        throw new LinkError('the link to box ended', 'closed');
      },
    );
    await expect(lost).rejects.toBeInstanceOf(LinkError);
    await expect(lost).rejects.not.toBeInstanceOf(TargetOffline);
    await expect(
      throughLink(
        async () => {
          throw new Error('bad');
        },
        async () => '',
      ),
    ).rejects.not.toBeInstanceOf(TargetOffline);
    expect(
      await throughLink(
        async (fn) => fn(link),
        async () => 'queued',
      ),
    ).toBe('queued');
  });
});
