// One link to a remote host: the host's command (ssh, docker exec, kubectl exec) started here, one
// line written into the shell it gives that runs `mado bridge` there, and then many channels over
// its standard input and output. Nothing listens anywhere; what the other side says is hostile input:
// bounded, checked, and a link that says garbage, the wrong version or nothing at all is dropped
// with the reason in words. A link that falls silent (a frozen ssh, a network that drops packets)
// is dropped within `deadMs`.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { checkProto, encode, LineDecoder, parseLine, PROTO } from '../protocol/codec.js';
import { asReply } from '../protocol/replies.js';
import type { Reply } from '../protocol/replies.js';
import type { ListedJob } from '../protocol/replies.js';
import { isServiceRequest } from '../client/service.js';
import type { DaemonRequest } from '../protocol/daemon-requests.js';
import { newestPaced } from '../../shared/debounce.js';
import { JobError } from '../../shared/errors.js';
import { safeText } from '../../shared/text.js';
import { DEFAULT_CONNECT_MS } from './hosts.js';
import type { HostConfig } from './hosts.js';
import { bridgeHelloOf, listedJobsOf, listGapMs, MAX_CHANNELS, MAX_LINK_MESSAGE, parseBridgeEvent } from './wire.js';
import type { BridgeEvent, BridgeRequest } from './wire.js';

/**
 * Why a link is down: its command could not start or ended (`unreachable`: ssh's own words say why:
 * refused, no route, a key refused), no `mado` on the other side (`no-mado`), another protocol
 * (`version`), garbage (`protocol`), no answer in time (`timeout`, `frozen`), or closed here (`closed`).
 */
export type LinkFailure = 'unreachable' | 'no-mado' | 'version' | 'protocol' | 'timeout' | 'frozen' | 'closed';

export class LinkError extends Error {
  constructor(
    message: string,
    readonly reason: LinkFailure,
  ) {
    super(message);
  }
}

export interface LinkOptions {
  /** The environment the host's command runs with (it runs here: ssh needs the user's agent). */
  env: NodeJS.ProcessEnv;
  /** How long the bridge has to say hello (the host's `connectMs` unless given). */
  connectMs?: number;
  /** How often a link that is up is asked whether it lives. */
  pingMs?: number;
  /** How long a link that is up may say nothing before it is dropped. */
  deadMs?: number;
  /** A followed host's lists are shown at most one in this long (else as listGapMs says). */
  listGapMs?: number;
  /**
   * Runs the command in a session of its own, with no terminal: an `ssh` that would ask for a
   * password or a passphrase cannot write over the editor's screen (it fails, and says why).
   */
  detached?: boolean;
}

/** What a bridge may print before its hello (a shell's greeting, a login banner) before it counts as garbage. */
const MAX_NOISE_LINES = 200;
const MAX_NOISE_BYTES = 256 * 1024;
/** The end of the command's standard error kept, for the reason of a failure. */
const MAX_STDERR = 4096;
/**
 * A line that begins as a bridge writes a list (`{"type":"jobs","ch":N,` …, its version first or
 * last): on a followed channel it is kept unread, and read only if it is still the newest when its
 * turn to be shown comes (a host re-listing 2,000 jobs ten times a second is read twice a second).
 */
const LIST_LINE = /^\{(?:"proto":\d{1,3},)?"type":"jobs","ch":(\d{1,9}),/;
export const PING_MS = 500;
export const DEAD_MS = 2000;

/** Something that speaks the host protocol: a socket's connection, or a channel of a link to one. */
export interface MessagePeer {
  send(message: object): void;
  /** The next reply within `ms` (0: no limit); rejects when the peer is gone. */
  next(ms: number): Promise<Reply>;
  close(): void;
}

type Listener = (ev: BridgeEvent) => void;

export class Link {
  private readonly child: ChildProcess;
  private readonly listeners = new Map<number, Listener>();
  /** The followed channels (watch): each takes its lists' lines unread (see LIST_LINE). */
  private readonly followers = new Map<number, (line: string) => void>();
  private nextCh = 1;
  private stderrTail = '';
  private failure: LinkError | undefined;
  private up = false;
  private lastHeard = Date.now();
  private pinger: NodeJS.Timeout | undefined;
  private readonly downWaiters: ((e: LinkError) => void)[] = [];
  version = '';
  remotePid = 0;
  /** The requests its bridge serves, as its hello names them (an older bridge names none). */
  private serves: readonly string[] = [];

  private constructor(
    readonly name: string,
    readonly config: HostConfig,
    private readonly opts: LinkOptions,
  ) {
    const [program, ...args] = config.command;
    this.child = spawn(program!, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: opts.env,
      detached: opts.detached === true,
    });
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (d: string) => {
      this.stderrTail = (this.stderrTail + d).slice(-MAX_STDERR);
    });
    this.child.stdin!.on('error', () => {
      // The command has ended: its exit tells why.
    });
  }

  /** Starts the host's command and waits for its bridge's hello; a LinkError says why it could not. */
  static open(name: string, config: HostConfig, opts: LinkOptions): Promise<Link> {
    const link = new Link(name, config, opts);
    return link.start();
  }

  private start(): Promise<Link> {
    const child = this.child;
    const connectMs = this.opts.connectMs ?? this.config.connectMs ?? DEFAULT_CONNECT_MS;
    return new Promise<Link>((resolve, reject) => {
      let noiseLines = 0;
      let noiseBytes = 0;
      let pending = '';
      let decoder: LineDecoder | undefined;
      const timer = setTimeout(
        () =>
          this.fail(
            new LinkError(`${this.name} did not answer in ${connectMs / 1000} s${this.stderrWords()}`, 'timeout'),
          ),
        connectMs,
      );
      this.downWaiters.push((err) => {
        clearTimeout(timer);
        if (!this.up) reject(err);
      });
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        if (this.failure) return;
        this.lastHeard = Date.now();
        if (decoder) return this.take(decoder, chunk);
        // Before the hello: lines a shell or a login prints are passed over, bounded.
        pending += chunk;
        let nl: number;
        while (!decoder && (nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl).trim();
          pending = pending.slice(nl + 1);
          const hello = line.startsWith('{') ? helloIn(line) : undefined;
          if (!hello) {
            noiseLines++;
            noiseBytes += line.length;
            if (noiseLines > MAX_NOISE_LINES || noiseBytes > MAX_NOISE_BYTES) {
              return this.fail(
                new LinkError(
                  `${this.name} printed ${noiseLines} lines that are no bridge's hello (is \`${safeText(this.config.mado)} bridge\` MadoHub's?)`,
                  'protocol',
                ),
              );
            }
            continue;
          }
          if (hello.proto !== PROTO) {
            const newer = typeof hello.proto === 'number' && hello.proto > PROTO;
            return this.fail(
              new LinkError(
                `${this.name}'s mado ${hello.version} speaks protocol ${safeText(String(hello.proto))}, this mado speaks ${PROTO}: ` +
                  (newer ? 'update MadoHub here' : `update MadoHub on ${this.name}`) +
                  ' (see :help madohub-hosts)',
                'version',
              ),
            );
          }
          this.version = hello.version;
          this.remotePid = hello.pid;
          this.serves = hello.ops;
          this.up = true;
          clearTimeout(timer);
          decoder = new LineDecoder(MAX_LINK_MESSAGE);
          this.startPings();
          resolve(this);
          if (pending) this.take(decoder, pending);
          pending = '';
        }
        if (!decoder && pending.length > MAX_NOISE_BYTES)
          this.fail(
            new LinkError(
              `${this.name} printed a line of over ${MAX_NOISE_BYTES / 1024} KiB before its hello`,
              'protocol',
            ),
          );
      });
      child.once('error', (err) =>
        this.fail(
          new LinkError(
            `cannot run ${safeText(this.config.command[0]!)} for ${this.name}: ${err.message}`,
            'unreachable',
          ),
        ),
      );
      // Its standard error's last words (why ssh failed) may still be on their way when it exits:
      // its end is told once its output has closed ('close'), or 200 ms after its exit at the
      // latest (a process it left behind may hold the pipes).
      child.once('exit', (code, signal) => {
        setTimeout(() => this.fail(this.endedError(code, signal)), 200).unref();
        child.once('close', () => this.fail(this.endedError(code, signal)));
      });
      // The one line written into the other side's shell: its own `mado`, as the host's settings say.
      child.stdin!.write(`exec ${this.config.mado} bridge\n`);
    });
  }

  private take(decoder: LineDecoder, chunk: string): void {
    let lines: string[];
    try {
      lines = decoder.lines(chunk);
    } catch (err) {
      return this.fail(new LinkError(`${this.name}: ${err instanceof Error ? err.message : String(err)}`, 'protocol'));
    }
    for (const line of lines) {
      // A followed channel's list is kept as it came, read only if it is still the newest when shown.
      const follower = this.followers.get(Number(LIST_LINE.exec(line.slice(0, 64))?.[1] ?? 0));
      if (follower) {
        follower(line);
        continue;
      }
      const ev = this.eventOf(line);
      if (typeof ev === 'string') return this.fail(new LinkError(`${this.name}: ${ev}`, 'protocol'));
      if (ev.type === 'pong') continue;
      if (ev.ch === 0)
        return this.fail(
          new LinkError(
            `${this.name}'s bridge ended the link: ${safeText(ev.type === 'closed' ? (ev.error ?? '') : ev.type)}`,
            'protocol',
          ),
        );
      this.listeners.get(ev.ch)?.(ev);
    }
  }

  /** A line's event, or why it is none. */
  private eventOf(line: string): BridgeEvent | string {
    try {
      const m = parseLine(line);
      checkProto(m, this.name);
      return parseBridgeEvent(m);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  private startPings(): void {
    const pingMs = this.opts.pingMs ?? PING_MS;
    const deadMs = this.opts.deadMs ?? DEAD_MS;
    this.pinger = setInterval(() => {
      if (Date.now() - this.lastHeard > deadMs) {
        this.fail(
          new LinkError(
            `${this.name} said nothing for ${deadMs / 1000} s (a frozen link, or a network that drops packets)`,
            'frozen',
          ),
        );
        return;
      }
      this.write({ op: 'ping', ch: 0 });
    }, pingMs);
    this.pinger.unref();
  }

  private stderrWords(): string {
    const last = this.stderrTail
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean)
      .slice(-2)
      .join(' ');
    return last ? `: ${safeText(last).slice(0, 300)}` : '';
  }

  private endedError(code: number | null, signal: NodeJS.Signals | null): LinkError {
    const how = signal ? `was killed by ${signal}` : `ended with status ${code}`;
    if (code === 127 && /not found|No such file/i.test(this.stderrTail)) {
      return new LinkError(
        `${this.name} has no \`${safeText(this.config.mado)}\` to run${this.stderrWords()} (install MadoHub there, or set its "mado" in hosts.json: see :help madohub-hosts)`,
        'no-mado',
      );
    }
    return new LinkError(`the link to ${this.name} ${how}${this.stderrWords()}`, this.up ? 'closed' : 'unreachable');
  }

  private fail(err: LinkError, graceful = false): void {
    if (this.failure) return;
    this.failure = err;
    if (this.pinger) clearInterval(this.pinger);
    for (const w of this.downWaiters.splice(0)) w(err);
    for (const [ch, fn] of [...this.listeners]) {
      this.listeners.delete(ch);
      fn({ type: 'closed', ch, error: err.message });
    }
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    // SIGKILL: a stopped (SIGSTOP) command takes no other signal. A link closed here first ends the
    // bridge's input (it leaves then) and kills only a command that lingers.
    if (!graceful) this.kill();
    else {
      this.child.stdin!.end();
      setTimeout(() => this.child.exitCode === null && this.child.signalCode === null && this.kill(), 1000).unref();
    }
  }

  /** Kills the command (its whole session when it has one of its own: a ProxyCommand with it). */
  private kill(): void {
    try {
      if (this.opts.detached && this.child.pid) process.kill(-this.child.pid, 'SIGKILL');
      else this.child.kill('SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }

  /** The pid of the host's command here (ssh's). */
  get commandPid(): number | undefined {
    return this.child.pid;
  }

  /** Why the link is down, or undefined while it is up. */
  get down(): LinkError | undefined {
    return this.failure;
  }

  /** Called once when the link goes down (at once when it is down). */
  onDown(fn: (err: LinkError) => void): void {
    if (this.failure) fn(this.failure);
    else this.downWaiters.push(fn);
  }

  private write(req: BridgeRequest): void {
    if (this.failure) return;
    this.child.stdin!.write(encode(req));
  }

  /** Opens a channel: `fn` hears its events until it closes (a `closed` event comes last). */
  private open(fn: Listener): number {
    if (this.failure) throw this.failure;
    if (this.listeners.size >= MAX_CHANNELS)
      throw new LinkError(`the link to ${this.name} has ${MAX_CHANNELS} channels open`, 'protocol');
    const ch = this.nextCh++;
    this.listeners.set(ch, fn);
    return ch;
  }

  private closeChannel(ch: number): void {
    if (this.listeners.delete(ch)) this.write({ op: 'close', ch });
  }

  /** The host's jobs, as `mado agents --json` lists them there. */
  list(timeoutMs: number): Promise<ListedJob[]> {
    return new Promise((resolve, reject) => {
      let ch = 0;
      const timer = setTimeout(() => {
        this.closeChannel(ch);
        reject(new LinkError(`${this.name} did not list its jobs in ${timeoutMs / 1000} s`, 'timeout'));
      }, timeoutMs);
      try {
        ch = this.open((ev) => {
          clearTimeout(timer);
          this.listeners.delete(ch);
          if (ev.type === 'jobs') {
            const jobs = listedJobsOf(ev.jobs);
            if (typeof jobs === 'string') {
              const refused = new LinkError(`${this.name}: ${jobs}`, 'protocol');
              reject(refused);
              this.fail(refused);
            } else resolve(jobs);
          } else if (ev.type === 'closed')
            reject(this.failure ?? new LinkError(ev.error ?? `${this.name} closed the list`, 'closed'));
          else reject(new LinkError(`${this.name} answered a list with ${ev.type}`, 'protocol'));
        });
      } catch (err) {
        clearTimeout(timer);
        return reject(err);
      }
      this.write({ op: 'list', ch });
    });
  }

  /**
   * Follows the host's jobs: `onJobs` hears its listings (the first at once) until `close` or the link
   * goes down, each once the one before has had its time (listGapMs: 500 ms after a list of 2,000): the
   * newest, checked then (lists it sent sooner are dropped unread: a host re-listing 2,000 jobs every
   * 100 ms costs a list's check twice a second, not ten times).
   */
  watch(onJobs: (jobs: ListedJob[]) => void): { close(): void } {
    const show = (list: string | BridgeEvent): void => {
      if (!this.listeners.has(ch)) return;
      const ev = typeof list === 'string' ? this.eventOf(list) : list;
      const jobs =
        typeof ev === 'string' ? ev : ev.type === 'jobs' ? listedJobsOf(ev.jobs) : `a list that is ${ev.type}`;
      if (typeof jobs === 'string') return this.fail(new LinkError(`${this.name}: ${jobs}`, 'protocol'));
      shownJobs = jobs.length;
      onJobs(jobs);
    };
    let shownJobs = 0;
    const newest = newestPaced(show, () => this.opts.listGapMs ?? listGapMs(shownJobs));
    const ch = this.open((ev) => {
      // A list whose line did not begin as a bridge writes it comes parsed: paced as any other.
      if (ev.type === 'jobs') newest.put(ev);
      else if (ev.type === 'closed') this.stopFollowing(ch, newest);
    });
    this.followers.set(ch, (line) => newest.put(line));
    this.write({ op: 'watch', ch });
    return {
      close: () => {
        this.stopFollowing(ch, newest);
        this.closeChannel(ch);
      },
    };
  }

  private stopFollowing(ch: number, newest: { cancel(): void }): void {
    this.listeners.delete(ch);
    this.followers.delete(ch);
    newest.cancel();
  }

  /**
   * Runs `mado …argv` on the host; its output comes to `onOut` as it is written (text as the other
   * side wrote it: the caller makes it safe to print). Resolves with its exit status; rejects when
   * the link drops first.
   */
  verb(
    argv: string[],
    opts: {
      stdin?: string;
      cwd?: string;
      env?: Record<string, string>;
      signal?: AbortSignal;
      deadlineMs?: number;
      onOut(fd: 1 | 2, data: string): void;
    },
  ): Promise<number> {
    return new Promise((resolve, reject) => {
      let ch = 0;
      let deadline: NodeJS.Timeout | undefined;
      const give = (err: LinkError): void => {
        clearTimeout(deadline);
        this.closeChannel(ch);
        reject(err);
      };
      // Given up on here (its asker left): the channel closes, and the other side ends the verb.
      opts.signal?.addEventListener('abort', () =>
        give(new LinkError(`\`mado ${argv[0] ?? ''}\` on ${this.name} was given up`, 'closed')),
      );
      try {
        ch = this.open((ev) => {
          if (ev.type === 'out') opts.onOut(ev.fd, ev.data);
          else if (ev.type === 'exit') {
            clearTimeout(deadline);
            this.listeners.delete(ch);
            resolve(ev.code);
          } else if (ev.type === 'closed') {
            clearTimeout(deadline);
            this.listeners.delete(ch);
            reject(this.failure ?? new LinkError(ev.error ?? `${this.name} closed the command`, 'closed'));
          }
        });
      } catch (err) {
        return reject(err);
      }
      // Its end may never come though the link lives (a host that answers pings, and ends the verb on another channel).
      if (opts.deadlineMs !== undefined) {
        const s = opts.deadlineMs / 1000;
        deadline = setTimeout(
          () => give(new LinkError(`\`mado ${argv[0] ?? ''}\` on ${this.name} did not end in ${s} s`, 'timeout')),
          opts.deadlineMs,
        );
      }
      const cwd = opts.cwd ?? this.config.cwd;
      this.write({
        op: 'verb',
        ch,
        argv,
        as: this.name,
        ...(opts.stdin === undefined ? {} : { stdin: opts.stdin }),
        ...(cwd === undefined ? {} : { cwd }),
        ...(opts.env && Object.keys(opts.env).length > 0 ? { env: opts.env } : {}),
      });
    });
  }

  /**
   * A connection to the host of job `id` on the other side (its id, a prefix or its name), speaking
   * the host protocol as a socket's Conn does; resolves once that host has said hello.
   */
  async host(id: string, helloMs: number): Promise<MessagePeer> {
    const queue: Reply[] = [];
    let waiter: ((r: Reply | LinkError) => void) | undefined;
    let gone: LinkError | undefined;
    const deliver = (r: Reply | LinkError): void => {
      if (r instanceof LinkError) gone ??= r;
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        w(r instanceof LinkError ? gone! : r);
      } else if (!(r instanceof LinkError)) queue.push(r);
    };
    const ch = this.open((ev) => {
      if (ev.type === 'msg') {
        const reply = asReply(ev.msg);
        if (typeof reply !== 'string') deliver(reply);
        else {
          this.closeChannel(ch);
          deliver(new LinkError(`${this.name} passed on a message that is no reply: ${reply}`, 'protocol'));
        }
      } else if (ev.type === 'closed') {
        this.listeners.delete(ch);
        deliver(this.failure ?? new LinkError(ev.error ?? `${this.name} closed the connection`, 'closed'));
      }
    });
    const peer: MessagePeer = {
      send: (message) => this.write({ op: 'msg', ch, msg: { ...message } as Record<string, unknown> }),
      next: (ms) => {
        const q = queue.shift();
        if (q) return Promise.resolve(q);
        if (gone) return Promise.reject(gone);
        return new Promise((resolve, reject) => {
          const timer =
            ms > 0
              ? setTimeout(() => {
                  waiter = undefined;
                  reject(new LinkError(`no answer from ${this.name} in ${ms / 1000} s`, 'timeout'));
                }, ms)
              : undefined;
          waiter = (r) => {
            if (timer) clearTimeout(timer);
            if (r instanceof LinkError) reject(r);
            else resolve(r);
          };
        });
      },
      // Closed here: a reader waiting on it is told, as a socket's is.
      close: () => {
        this.closeChannel(ch);
        deliver(new LinkError(`the connection to ${this.name} was closed`, 'closed'));
      },
    };
    this.write({ op: 'host', ch, id });
    let hello: Reply;
    try {
      hello = await peer.next(helloMs);
    } catch (err) {
      peer.close();
      throw err;
    }
    if (hello.type !== 'hello') {
      peer.close();
      throw new LinkError(
        hello.type === 'error'
          ? safeText(hello.error)
          : `the host of ${safeText(id)} on ${this.name} did not say hello`,
        'protocol',
      );
    }
    return peer;
  }

  /**
   * Asks the host's daemon one request of the job service (its bridge carries it as it is): its reply; an
   * error reply is thrown as a JobError in the daemon's words, named by the host. `timeoutMs`: the daemon's
   * own bound, and the link's time to carry it (5 s) on top. A dispatch's empty `cwd` is the host's setting
   * there. A request the service does not make (a route, a list) is refused here: the link carries none.
   */
  daemon(request: DaemonRequest, timeoutMs: number): Promise<Reply> {
    if (!isServiceRequest(request)) return Promise.reject(new JobError(`${request.op} is not done on a remote host`));
    const cwd = this.config.cwd;
    return this.once(
      'daemon',
      (ch) => ({ op: 'daemon', ch, req: { ...request }, ...(cwd === undefined ? {} : { cwd }) }),
      (msg) => {
        const reply = asReply(msg);
        return typeof reply !== 'string' && reply.type !== 'error' ? { value: reply } : undefined;
      },
      { what: `${this.name}'s daemon`, name: request.op, ms: timeoutMs + 5000 },
    );
  }

  /**
   * Runs operation `name` of that machine's registry with `args` (checked there, as its own are): its
   * result as it sent it (the caller checks it with the operation's schema), or its error, thrown.
   */
  run(name: string, args: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    return this.once(
      'run',
      (ch) => ({ op: 'run', ch, name, args, ...(this.config.cwd === undefined ? {} : { cwd: this.config.cwd }) }),
      (msg) => (msg.type === 'result' && 'result' in msg ? { value: msg.result } : undefined),
      { what: this.name, name, ms: timeoutMs },
    );
  }

  /**
   * One request on a channel of its own, answered by one message: `accept`'s value, or an error message's
   * words thrown as a JobError named by the host; the bridge must serve `op`, and answer within `bound.ms`.
   */
  private once<T>(
    op: BridgeRequest['op'],
    request: (ch: number) => BridgeRequest,
    accept: (msg: Record<string, unknown>) => { value: T } | undefined,
    bound: { what: string; name: string; ms: number },
  ): Promise<T> {
    if (!this.serves.includes(op))
      return Promise.reject(
        new JobError(
          `${this.name}'s mado ${this.version} takes no ${op} requests: update MadoHub on ${this.name} (see :help madohub-hosts)`,
        ),
      );
    return new Promise((resolve, reject) => {
      let ch = 0;
      const timer = setTimeout(() => {
        this.closeChannel(ch);
        reject(
          new LinkError(
            `${bound.what} did not answer \`${bound.name}\` in ${Math.round(bound.ms / 1000)} s`,
            'timeout',
          ),
        );
      }, bound.ms);
      try {
        ch = this.open((ev) => {
          clearTimeout(timer);
          this.listeners.delete(ch);
          if (ev.type === 'closed')
            return reject(this.failure ?? new LinkError(ev.error ?? `${this.name} closed the request`, 'closed'));
          const msg = ev.type === 'msg' ? ev.msg : undefined;
          if (msg?.type === 'error' && typeof msg.error === 'string')
            return reject(new JobError(`${this.name}: ${safeText(msg.error)}`));
          const accepted = msg ? accept(msg) : undefined;
          if (!accepted)
            return reject(new LinkError(`${this.name} answered \`${bound.name}\` with no reply`, 'protocol'));
          resolve(accepted.value);
        });
      } catch (err) {
        clearTimeout(timer);
        return reject(err);
      }
      this.write(request(ch));
    });
  }

  /** Ends the link: its bridge leaves when its input ends; the command is killed if it lingers. */
  close(): void {
    if (this.failure) return;
    this.fail(new LinkError(`the link to ${this.name} was closed`, 'closed'), true);
  }
}

/** The bridge's hello in a line, if it is one. */
function helloIn(line: string): ReturnType<typeof bridgeHelloOf> {
  try {
    return bridgeHelloOf(JSON.parse(line));
  } catch {
    return undefined;
  }
}
