// The routes of one place (this Neovim's Node process, or the daemon): which routes there are, and
// what happens when a source finishes a turn — the chain rules, the payload, the delivery. What it
// reads and where it writes is its backend's (RouteBackend), so that the same rules serve both places.
import { PENDING_WORDS } from '../shared/pending.js';
import type { Pending } from '../shared/pending.js';
import { randomBytes } from 'node:crypto';
import { closesCycle, nextChain } from './chain.js';
import { NEOVIM_ENDS } from '../shared/route-check.js';
import { idIsOf } from '../shared/fleet-id.js';
import { linkProblem } from '../shared/links.js';
import { fill, provenance, spilled, templateText } from './payload.js';
import type { PayloadVars } from './payload.js';
import { DEFAULT_HOPS, MAX_HOPS, ROUTE_ONS, ROUTE_SENDS } from '../shared/route-types.js';
import type { Chain, Route, RouteOn, RouteRequest, RouteSend } from '../shared/route-types.js';
import type { AgentState } from '../shared/types.js';
import { TurnBook } from '../state/turns.js';
import { TargetOffline } from '../shared/errors.js';
import type { TurnBounds } from '../state/turns.js';

export type { TurnBounds };

export type { RouteRequest };

/** What the agent at a route's end is, for a payload's template and the messages. */
export interface RouteEnd {
  id: string;
  name: string;
  agent: string;
  cwd: string;
  state: string;
}

/**
 * A delivery made: by which route, from and to which end, the chain's hop, its size, and when the finished
 * turn was known (epoch ms).
 */
export interface RouteFired {
  route: string;
  source: string;
  target: string;
  hop: number;
  bytes: number;
  knownAt: number;
}

export interface RouteBackend {
  /**
   * How this place's routes are given a hop count, for its messages: `hops=N` (:MadoRoute, the default),
   * `--hops N` (mado route add).
   */
  readonly hopsOption?: string;
  /** Why this place cannot keep such a route (the daemon opens no review), or undefined. */
  refuse?(req: RouteRequest): string | undefined;
  /** A source or target that is a fleet entry, as it is now; undefined when it is gone (or is a buffer or file). */
  end(id: string): RouteEnd | undefined;
  /** Whether a target can take text (a buffer or file exists, an entry is there). */
  targetExists(target: string): boolean;
  /**
   * The source's final answer of the turn that just ended (`turn`): from its records, the answer of a
   * prompt of that turn (throws 'no answer recorded for this turn' when none lands in time), else
   * from its screen.
   */
  answer(source: RouteEnd, turn: TurnBounds): Promise<string | undefined>;
  screen(source: RouteEnd): Promise<string>;
  diff(source: RouteEnd): Promise<string>;
  /** Why `send=diff` cannot work for this source (its turns have no checkpoints here), or undefined. */
  diffProblem?(source: string): string | undefined;
  /** Routes kept elsewhere that payloads travel too (a Neovim's view of the daemon's): a cycle through them is one. */
  otherRoutes?(): readonly Pick<Route, 'source' | 'target'>[];
  /**
   * Delivers the text on its chain; answers '' once sent, else why it waits (`queued`, `held-draft`);
   * throws why it cannot.
   */
  deliver(target: string, text: string, busyMs: number, chain: Chain): Promise<Pending>;
  /**
   * The chain that reached an entry whose chains are kept outside this place (a job's host keeps its
   * own, whichever place delivered to it); undefined for the entries this place keeps.
   */
  chainOf?(entry: string): { chain: Chain | undefined } | undefined;
  /** The payload in a buffer to edit: the text to send, or null to drop this firing. */
  review(route: Route, text: string): Promise<string | null>;
  /** Writes a payload too large to send into a file of its own; its path. */
  spill(route: Route, text: string): string;
  fired(e: RouteFired): void;
  held(e: { route: string; reason: string }): void;
  /** A message for the user (`warn` when something did not happen). */
  say(message: string, warn?: boolean): void;
  /** The routes changed (the list is shown to the user). */
  changed(routes: Route[]): void;
}

/** What sets a route off: its source's turn ended, failed, or it started waiting. */
export type RouteTrigger = 'done' | 'failed' | 'waiting';

/**
 * What a change of a source's state sets off (the one mapping, for terminals and jobs alike):
 * `turnEnded` when a turn ended with it (a terminal's completion, a job reaching Stopped or
 * Completed), else a Failed state that is new; and a Waiting state that is new.
 */
export function triggersOf(from: AgentState | null | undefined, to: AgentState, turnEnded: boolean): RouteTrigger[] {
  const out: RouteTrigger[] = [];
  if (turnEnded) out.push('done');
  else if (to === 'failed' && from !== 'failed') out.push('failed');
  if (to === 'waiting' && from !== 'waiting') out.push('waiting');
  return out;
}

/**
 * A job's turn ended when its file counts one more ended turn than before (`turns`: before, now), a
 * turn whose Working no reading saw too; or, in the file of a host that counts none, when its state
 * became Stopped or Completed.
 */
export const jobTurnEnded = (
  from: AgentState | null | undefined,
  to: AgentState,
  turns?: { before: number; now: number },
): boolean =>
  (turns !== undefined && turns.now > turns.before) || (from !== to && (to === 'stopped' || to === 'completed'));

export interface RouteSettings {
  /** The user's named templates. */
  templates: Readonly<Record<string, string>>;
  /** A payload larger than this goes to a file. */
  maxBytes: number;
  /** How long a target may stay busy before a payload for it is dropped. */
  busyMs: number;
}

export const DEFAULT_SETTINGS: RouteSettings = { templates: {}, maxBytes: 32 * 1024, busyMs: 10 * 60 * 1000 };

/** At most one delivery per route in this long. */
export const MIN_GAP_MS = 2000;
/** The most routes one place keeps. */
export const MAX_ROUTES = 200;
/** How often payloads kept for an offline target are tried again. */
export const PARKED_RETRY_MS = 2000;
/** The most payloads kept for one offline target (the next is not sent, and said). */
export const MAX_PARKED = 8;

/** A payload whose target could not be reached (its host offline), kept until it can be, `busyMs` at most. */
interface Parked {
  route: Route;
  text: string;
  chain: Chain;
  knownAt: number;
  /** When it was first tried (the engine's clock). */
  since: number;
}

export class RouteEngine {
  private readonly routes = new Map<string, Route>();
  /**
   * The chain that reached each entry last (a payload it was given), but for those kept by the backend
   * (chainOf); the user's own input ends it.
   */
  private readonly reached = new Map<string, Chain>();
  /** The last body each target was given (the same one twice in a row is not sent). */
  private readonly lastBody = new Map<string, string>();
  private readonly lastFired = new Map<string, number>();
  /** A route's turn that ended less than MIN_GAP_MS after its last firing: it fires once the gap is over. */
  private readonly deferred = new Map<string, NodeJS.Timeout>();
  /** Payloads waiting for their offline targets, oldest first. */
  private readonly parked: Parked[] = [];
  private parkedTimer?: NodeJS.Timeout;
  private retrying = false;
  /** Each source's turns: which prompt a finished turn's answer follows. */
  private readonly turns: TurnBook;
  private paused = false;

  constructor(
    private readonly backend: RouteBackend,
    private settings: RouteSettings = DEFAULT_SETTINGS,
    private readonly now: () => number = Date.now,
    private readonly newId: () => string = () => randomBytes(3).toString('hex'),
  ) {
    this.turns = new TurnBook(now);
  }

  configure(settings: RouteSettings): void {
    this.settings = settings;
  }

  list(): Route[] {
    return [...this.routes.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  /** Adds a route; throws why it cannot be one. */
  add(req: RouteRequest): Route {
    const on = (req.on ?? 'done') as RouteOn;
    const send = (req.send ?? 'last') as RouteSend;
    if (!ROUTE_ONS.includes(on))
      throw new Error(`on=${String(req.on).slice(0, 20)} is none of ${ROUTE_ONS.join(', ')}`);
    if (!ROUTE_SENDS.includes(send))
      throw new Error(`send=${String(req.send).slice(0, 20)} is none of ${ROUTE_SENDS.join(', ')}`);
    const template = req.template ?? '';
    if (templateText(template, send, this.settings.templates) === undefined)
      throw new Error(`no template '${template.slice(0, 40)}'`);
    if (req.hops !== undefined && (!Number.isInteger(req.hops) || req.hops < 1 || req.hops > MAX_HOPS))
      throw new Error(`hops must be 1 to ${MAX_HOPS}`);
    if (!idIsOf(req.source, NEOVIM_ENDS.source))
      throw new Error(`a route's source is a terminal or a job, not '${req.source.slice(0, 60)}'`);
    const refused = this.backend.refuse?.(req);
    if (refused) throw new Error(refused);
    if (!this.backend.end(req.source)) throw new Error(`no agent '${req.source}'`);
    if (req.source === req.target) throw new Error('a route to itself is none');
    if (!this.backend.targetExists(req.target)) throw new Error(`no target '${req.target.slice(0, 80)}'`);
    const linked = req.target.startsWith('file:') ? linkProblem(req.target.slice(5)) : undefined;
    if (linked) throw new Error(linked);
    const twin = this.list().find(
      (r) =>
        r.source === req.source && r.target === req.target && r.on === on && r.send === send && r.template === template,
    );
    if (twin)
      throw new Error(
        `route ${twin.id} does that already (${twin.source} → ${twin.targetName}, on=${on} send=${send})`,
      );
    if (send === 'diff') {
      const why = this.backend.diffProblem?.(req.source);
      if (why) throw new Error(`send=diff: ${why}`);
    }
    if (this.routes.size >= MAX_ROUTES) throw new Error(`there are ${MAX_ROUTES} routes already`);
    if (req.hops === undefined && closesCycle([...this.list(), ...(this.backend.otherRoutes?.() ?? [])], req)) {
      throw new Error(
        `this route closes a cycle (${req.targetName ?? this.backend.end(req.target)?.name ?? req.target} leads back to ${this.backend.end(req.source)?.name ?? req.source}); give ${this.backend.hopsOption ?? 'hops=N'} to allow it`,
      );
    }
    let id = this.newId();
    while (this.routes.has(id)) id = this.newId();
    const route: Route = {
      id,
      source: req.source,
      target: req.target,
      targetName: (req.targetName ?? req.target).slice(0, 200),
      on,
      send,
      template,
      hops: req.hops ?? DEFAULT_HOPS,
      once: req.once === true,
      review: req.review === true,
      paused: false,
      createdAt: this.now(),
    };
    this.routes.set(id, route);
    this.backend.changed(this.list());
    return route;
  }

  /** Takes routes kept from before (the daemon's file), without telling the backend. */
  restore(routes: readonly Route[]): void {
    for (const r of routes) if (this.routes.size < MAX_ROUTES) this.routes.set(r.id, r);
  }

  remove(id: string): boolean {
    const had = this.routes.delete(id);
    if (had) this.backend.changed(this.list());
    return had;
  }

  clear(): number {
    const n = this.routes.size;
    this.routes.clear();
    if (n > 0) this.backend.changed(this.list());
    return n;
  }

  /** Pauses (true) or resumes every route of this place. */
  pause(paused: boolean): void {
    this.paused = paused;
    for (const r of this.routes.values()) r.paused = paused;
    this.backend.changed(this.list());
  }

  /** The user typed into an entry or replied to it: what it does next starts a chain of its own. */
  userInput(entry: string): void {
    this.reached.delete(entry);
  }

  /** An entry is gone (a terminal closed, a job removed): its routes go, and the user is told of those it received. */
  gone(entry: string): void {
    this.reached.delete(entry);
    this.lastBody.delete(entry);
    this.turns.forget(entry);
    let changed = false;
    for (const r of [...this.routes.values()]) {
      if (r.source !== entry && r.target !== entry) continue;
      this.routes.delete(r.id);
      changed = true;
      if (r.target === entry) this.backend.say(`route ${r.id} removed: its target ${entry} is gone`, true);
    }
    if (changed) this.backend.changed(this.list());
  }

  /** A source's state changed: the routes it sets off fire (see triggersOf), each with the turn that ended. */
  changed(source: string, from: AgentState | null | undefined, to: AgentState, turnEnded: boolean): void {
    const how = triggersOf(from, to, turnEnded);
    const turn = this.turns.changed(source, to, how.includes('done') || how.includes('failed')) ?? { since: undefined };
    for (const h of how) void this.finished(source, h, turn);
  }

  /** `source` finished a turn (`done`), failed one, or began to wait: its routes fire. */
  async finished(source: string, how: RouteTrigger, turn: TurnBounds = { since: undefined }): Promise<void> {
    if (this.paused) return;
    const firing = [...this.routes.values()].filter(
      (r) =>
        r.source === source &&
        !r.paused &&
        (how === 'waiting' ? r.on === 'waiting' : how === 'done' ? r.on !== 'waiting' : r.on === 'turn'),
    );
    await Promise.all(firing.map((r) => this.fireOrSay(r, turn)));
  }

  /** Fires `r` for `turn`; what stops it is said as the route's failure. */
  private fireOrSay(r: Route, turn: TurnBounds): Promise<void> {
    return this.fire(r, turn).catch((err: unknown) => this.fail(r, err instanceof Error ? err.message : String(err)));
  }

  private fail(r: Route, why: string): void {
    this.backend.held({ route: r.id, reason: why });
    this.backend.say(
      `route ${r.id} (${this.backend.end(r.source)?.name ?? r.source} → ${this.backend.end(r.target)?.name ?? r.targetName}): ${why}`,
      true,
    );
  }

  private async fire(r: Route, turn: TurnBounds): Promise<void> {
    const at = this.now();
    const knownAt = Date.now();
    clearTimeout(this.deferred.get(r.id));
    this.deferred.delete(r.id);
    // A turn that ended too soon after the last firing is not lost: it fires once the gap is over (a
    // later turn's end before then takes its place, its answer the newer).
    const wait = (this.lastFired.get(r.id) ?? -Infinity) + MIN_GAP_MS - at;
    if (wait > 0) {
      const timer = setTimeout(() => {
        this.deferred.delete(r.id);
        if (this.routes.get(r.id) !== r || r.paused || this.paused) return;
        void this.fireOrSay(r, turn);
      }, wait);
      timer.unref();
      this.deferred.set(r.id, timer);
      return this.backend.held({ route: r.id, reason: 'less than 2 s since it last fired' });
    }
    const source = this.backend.end(r.source);
    if (!source) return this.gone(r.source);
    if (!this.backend.targetExists(r.target)) return this.gone(r.target);
    const reached = this.backend.chainOf?.(r.source) ?? { chain: this.reached.get(r.source) };
    const step = nextChain(reached.chain, r.source, r.target, r.hops, this.newId);
    if ('drop' in step) return this.fail(r, `not sent: ${step.drop}`);
    this.lastFired.set(r.id, at);
    const vars = await this.vars(r, source, step.chain.hop, turn);
    // An empty part leaves no run of blank lines behind.
    const body = fill(templateText(r.template, r.send, this.settings.templates) ?? '', vars)
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    if (body === '') return this.fail(r, `not sent: ${source.name} left nothing to send (${r.send})`);
    // Checked and taken at once (before any wait): routes that fire together send one payload.
    const lastBody = this.lastBody.get(r.target);
    if (lastBody === body) return this.fail(r, `not sent: the same text as the last one ${r.targetName} was given`);
    this.lastBody.set(r.target, body);
    const untake = (): void => {
      if (this.lastBody.get(r.target) !== body) return;
      if (lastBody === undefined) this.lastBody.delete(r.target);
      else this.lastBody.set(r.target, lastBody);
    };
    let sent = false;
    try {
      sent = await this.send(r, source, step.chain, body, knownAt);
    } finally {
      if (!sent) untake();
    }
  }

  /** Sends a payload taken for its target; false when it was dropped (in review). */
  private async send(r: Route, source: RouteEnd, chain: Chain, body: string, knownAt: number): Promise<boolean> {
    const target = this.backend.end(r.target);
    const head = provenance(source.name, target?.name ?? r.targetName, chain.hop, r.hops);
    let text = `${head}\n${body}`;
    if (r.review) {
      const edited = await this.backend.review(r, text);
      if (edited === null || edited.trim() === '') {
        this.backend.held({ route: r.id, reason: 'dropped in review' });
        return false;
      }
      text = edited;
    }
    if (Buffer.byteLength(text) > this.settings.maxBytes) text = spilled(head, this.backend.spill(r, text), text);
    // Payloads wait in order: one for a target others wait for goes behind them.
    if (this.parked.some((p) => p.route.target === r.target))
      return this.park(r, text, chain, knownAt, 'its host is offline');
    let pending: Pending;
    try {
      pending = await this.backend.deliver(r.target, text, this.settings.busyMs, chain);
    } catch (err) {
      if (!(err instanceof TargetOffline)) throw err;
      return this.park(r, text, chain, knownAt, err.message);
    }
    this.delivered(r, chain, text, knownAt, pending);
    return true;
  }

  /** A payload its target took: its chain goes on, it is told (and what it waits for there, if it waits). */
  private delivered(r: Route, chain: Chain, text: string, knownAt: number, pending: Pending): void {
    this.reached.set(r.target, chain);
    this.backend.fired({
      route: r.id,
      source: r.source,
      target: r.target,
      hop: chain.hop,
      bytes: Buffer.byteLength(text),
      knownAt,
    });
    if (pending !== '') {
      const why = PENDING_WORDS[pending];
      this.backend.held({ route: r.id, reason: why });
      this.backend.say(`route ${r.id}: ${why} for ${this.targetNameOf(r)} (sent when it may)`);
    }
    if (r.once) this.remove(r.id);
  }

  /** How long a payload is kept for an offline target, in whole minutes (for a person). */
  private keptMinutes(): number {
    return Math.round(this.settings.busyMs / 60_000);
  }

  private targetNameOf(r: Route): string {
    return this.backend.end(r.target)?.name ?? r.targetName;
  }

  /**
   * Keeps a payload its target cannot take now (its host offline): tried again every 2 s, `busyMs` at most.
   * False when it is not kept.
   */
  private park(r: Route, text: string, chain: Chain, knownAt: number, why: string): boolean {
    const waiting = this.parked.filter((p) => p.route.target === r.target).length;
    if (waiting >= MAX_PARKED) {
      this.fail(r, `not sent: ${MAX_PARKED} payloads already wait for ${this.targetNameOf(r)} (${why})`);
      return false;
    }
    this.parked.push({ route: r, text, chain, knownAt, since: this.now() });
    this.backend.held({ route: r.id, reason: 'target offline' });
    this.backend.say(
      `route ${r.id} (${this.backend.end(r.source)?.name ?? r.source} → ${this.targetNameOf(r)}): ${why}; kept, sent once it is back (${this.keptMinutes()} min at most)`,
    );
    this.armParked();
    return true;
  }

  private armParked(): void {
    if (this.parked.length === 0 || this.parkedTimer) return;
    this.parkedTimer = setTimeout(() => {
      this.parkedTimer = undefined;
      void this.retryParked();
    }, PARKED_RETRY_MS);
    this.parkedTimer.unref();
  }

  /**
   * Tries the kept payloads again, oldest first, one target's in order (a target still offline keeps
   * the rest of its own waiting): each delivered once; one kept past `busyMs` is given up, its text
   * written to a file that is named; one whose route was removed is dropped, and said.
   */
  async retryParked(): Promise<void> {
    if (this.retrying) return;
    this.retrying = true;
    try {
      const offline = new Set<string>();
      for (const p of [...this.parked]) {
        const r = p.route;
        if (offline.has(r.target)) continue;
        const drop = (): void => void this.parked.splice(this.parked.indexOf(p), 1);
        if (!this.routes.has(r.id)) {
          drop();
          this.backend.say(`route ${r.id} was removed: its payload kept for ${this.targetNameOf(r)} is dropped`, true);
          continue;
        }
        try {
          const pending = await this.backend.deliver(r.target, p.text, this.settings.busyMs, p.chain);
          drop();
          this.delivered(r, p.chain, p.text, p.knownAt, pending);
          this.backend.say(`route ${r.id}: delivered to ${this.targetNameOf(r)}, back online`);
        } catch (err) {
          if (!(err instanceof TargetOffline)) {
            drop();
            this.fail(r, err instanceof Error ? err.message : String(err));
            continue;
          }
          offline.add(r.target);
          if (this.now() - p.since < this.settings.busyMs) continue;
          drop();
          this.fail(
            r,
            `gave up: ${this.targetNameOf(r)} stayed offline ${this.keptMinutes()} min (${err.message}); the text is in ${this.backend.spill(r, p.text)}`,
          );
        }
      }
    } finally {
      this.retrying = false;
      this.armParked();
    }
  }

  /** How many payloads wait for offline targets. */
  get parkedCount(): number {
    return this.parked.length;
  }

  /** What the template names: the route's `send` part must be had; the others are best effort ('' when they fail). */
  private async vars(r: Route, source: RouteEnd, hop: number, turn: TurnBounds): Promise<PayloadVars> {
    const template = templateText(r.template, r.send, this.settings.templates) ?? '';
    const part = async (key: 'last' | 'diff' | 'screen', get: () => Promise<string | undefined>): Promise<string> => {
      if (!template.includes(`{${key}}`)) return '';
      if (key === r.send) return (await get()) ?? '';
      return get().then(
        (v) => v ?? '',
        () => '',
      );
    };
    return {
      last: await part('last', () => this.backend.answer(source, turn)),
      diff: await part('diff', () => this.backend.diff(source)),
      screen: await part('screen', () => this.backend.screen(source)),
      name: source.name,
      agent: source.agent,
      cwd: source.cwd,
      state: source.state,
      hop,
    };
  }
}
