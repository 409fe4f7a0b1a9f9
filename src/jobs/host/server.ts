// A host's socket: attach (the screen, then the stream; input; resize), watch (the job's file, then
// each change of it), text, follow (the text, then again as output changes it), status, stop, kill.
// A client that does not read is sent nothing more until it has caught up, then a fresh screen:
// what waits for it in memory stays under the serve helper's bound.
import type { Pending } from '../../shared/pending.js';
import type { Server } from 'node:net';
import type { Terminal } from '@xterm/headless';
import type { IPty } from 'node-pty';
import type { Chain } from '../chain-record.js';
import type { HostInfo } from '../hostinfo.js';
import type { JobFile } from '../types.js';
import type { HostRequest } from '../protocol/host-requests.js';
import { parseHostRequest } from '../protocol/host-requests.js';
import type { ScreenReply } from '../protocol/replies.js';
import type { Peer } from '../protocol/serve.js';
import { serve } from '../protocol/serve.js';
import { liveText, screenOf } from '../screen-text.js';

export interface HostParts {
  term: Terminal;
  child: IPty;
  info: HostInfo;
  title(): string;
  /** Ends the agent: gracefully (its interrupt, SIGTERM, SIGKILL) or at once. */
  stop(graceful: boolean): void;
  /** A reply to the agent: sent (`pending` ''), waiting (`queued`, `held-draft`), or why not. */
  send(
    text: string,
    terms: { waitMenus?: boolean; busyMs?: number; chain?: Chain },
  ): { pending: Pending } | { error: string };
  /** What an attached client typed, written to the agent as it is. */
  input(data: string): void;
  /** Answers the menu on the screen with a choice (1-based): the choice's text, or why not. */
  choose(choice: number): Promise<{ option: string } | { error: string }>;
  log(message: string): void;
  /** The job's file as the host last wrote it (none yet: it has written nothing). */
  job(): JobFile | undefined;
  /** The last attached client left. */
  detached?(): void;
  /** How many clients watch the job's file now (told at each one that comes or goes). */
  watchers?(count: number): void;
}

export interface HostServer {
  server: Server;
  /** Sends the agent's output to every attached client that keeps up. */
  broadcast(data: string): void;
  /** Tells every watching client the job's file as just written (one that lags: its last, once it has caught up). */
  jobWritten(job: JobFile): void;
  /** Tells every attached client that the agent exited, and closes. */
  close(code: number): void;
  /** How many clients are attached. */
  attachedCount(): number;
  /** How many clients watch the job's file. */
  watcherCount(): number;
}

/** A follower is told the text again at most this often while output comes, and once this long after it stops. */
const FOLLOW_PUSH_MS = 250;

export function serveHost(h: HostParts): HostServer {
  /** Attached clients, and whether each lags (sent nothing until it has drained). */
  const attached = new Map<Peer, { behind: boolean }>();
  /** Clients that watch the job's file, and whether each lags (told the file as it is once drained). */
  const watching = new Map<Peer, { behind: boolean }>();
  const tellJob = (peer: Peer, job: JobFile | undefined): void => {
    const state = watching.get(peer);
    if (!state || !job || state.behind) return;
    if (peer.send({ type: 'job', job })) return;
    state.behind = true;
    peer.onDrain(() => {
      state.behind = false;
      tellJob(peer, h.job());
    });
  };

  /** Clients that follow the text (`mado logs -f`), and whether each lags (told the text once drained). */
  const following = new Map<Peer, { behind: boolean }>();
  const tellText = (peer: Peer): void => {
    const state = following.get(peer);
    if (!state || state.behind) return;
    if (peer.send({ type: 'text', ...liveText(h.term) })) return;
    state.behind = true;
    peer.onDrain(() => {
      state.behind = false;
      tellText(peer);
    });
  };
  /** Output since the followers were last told; the timer of their next telling. */
  let moved = false;
  let followTimer: NodeJS.Timeout | undefined;
  const tellFollowers = (): void => {
    const again = moved;
    moved = false;
    for (const peer of following.keys()) tellText(peer);
    // Once more after the output stood still (what stands still on the screen is then known), then nothing.
    followTimer = again ? setTimeout(tellFollowers, FOLLOW_PUSH_MS) : undefined;
  };
  const outputMoved = (): void => {
    if (following.size === 0) return;
    moved = true;
    followTimer ??= setTimeout(tellFollowers, FOLLOW_PUSH_MS);
  };

  const screen = (): ScreenReply => {
    const { lines } = screenOf(h.term);
    const b = h.term.buffer.active;
    return { type: 'screen', lines, title: h.title(), cursor: { x: b.cursorX, y: b.cursorY } };
  };
  const catchUp = (peer: Peer): void => {
    const state = attached.get(peer);
    if (!state) return;
    if (peer.send(screen())) state.behind = false;
    else peer.onDrain(() => catchUp(peer));
  };
  const resize = (cols?: number, rows?: number): void => {
    if (cols && rows && (cols !== h.term.cols || rows !== h.term.rows)) {
      h.child.resize(cols, rows);
      h.term.resize(cols, rows);
    }
  };

  const handle = (m: HostRequest, peer: Peer): void => {
    switch (m.op) {
      case 'attach':
        resize(m.cols, m.rows);
        if (attached.has(peer)) return;
        attached.set(peer, { behind: false });
        peer.onClose(() => {
          attached.delete(peer);
          if (attached.size === 0) h.detached?.();
        });
        peer.send(screen());
        return;
      case 'watch':
        if (watching.has(peer)) return;
        watching.set(peer, { behind: false });
        h.watchers?.(watching.size);
        peer.onClose(() => {
          watching.delete(peer);
          h.watchers?.(watching.size);
        });
        return tellJob(peer, h.job());
      case 'resize':
        return resize(m.cols, m.rows);
      case 'input':
        return h.input(m.data);
      case 'send': {
        const sent = h.send(m.text, { waitMenus: m.waitMenus, busyMs: m.busyMs, chain: m.chain });
        return peer.end(
          'error' in sent
            ? { type: 'error', error: sent.error }
            : { type: 'ok', queued: sent.pending !== '', pending: sent.pending },
        );
      }
      case 'choose':
        void h
          .choose(m.choice)
          .then((chosen) =>
            peer.end(
              'error' in chosen ? { type: 'error', error: chosen.error } : { type: 'ok', option: chosen.option },
            ),
          );
        return;
      case 'text':
        return peer.end({ type: 'text', ...liveText(h.term) });
      case 'follow':
        if (following.has(peer)) return;
        following.set(peer, { behind: false });
        peer.onClose(() => following.delete(peer));
        return tellText(peer);
      case 'status':
        return peer.end({
          type: 'status',
          pid: h.info.pid,
          ptyPid: h.info.ptyPid,
          clients: attached.size,
          pendingBytes: [...attached.keys()].reduce((n, p) => n + p.pending, 0),
        });
      case 'stop':
      case 'kill':
        h.stop(m.op === 'stop');
        return peer.end({ type: 'ok' });
    }
  };

  const server = serve<HostRequest>({ role: 'host', parse: parseHostRequest, handle, log: h.log });
  return {
    server,
    broadcast(data) {
      outputMoved();
      for (const [peer, state] of attached) {
        if (state.behind) continue;
        if (!peer.send({ type: 'output', data })) {
          state.behind = true;
          peer.onDrain(() => catchUp(peer));
        }
      }
    },
    jobWritten(job) {
      for (const peer of watching.keys()) tellJob(peer, job);
    },
    close(code) {
      for (const peer of attached.keys()) peer.end({ type: 'exit', code });
      for (const peer of watching.keys()) peer.end({ type: 'exit', code });
      clearTimeout(followTimer);
      for (const peer of following.keys()) peer.end({ type: 'exit', code });
      server.close();
    },
    attachedCount: () => attached.size,
    watcherCount: () => watching.size,
  };
}
