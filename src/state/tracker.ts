import { detect } from '../detect/index.js';
import type { AgentId, AgentState, Detection, Screen, StateSource } from '../detect/index.js';

/** What the Lua side caches for one terminal buffer. */
export interface TerminalState {
  buf: number;
  agent: AgentId;
  state: AgentState;
  source: StateSource;
  detail: string;
  /** Epoch milliseconds when `state` was entered. */
  since: number;
}

/** A change pushed to Lua. `done` is set when this change is a completion (fires `MadoAgentDone`). */
export interface StateChange extends TerminalState {
  previous: AgentState | null;
  done?: { line: string };
}

interface TerminalRecord extends TerminalState {
  /** The key of the completion last counted, so that the same one seen again does not count twice. */
  lastCompletion?: string;
  /** Work was seen since the last counted completion: the same text may then be a new completion. */
  workedSinceCompletion: boolean;
  exited: boolean;
}

/**
 * Owns every terminal's state. Pure: fed screens and exits with the time, returns what changed.
 */
export class Tracker {
  private readonly records = new Map<number, TerminalRecord>();

  get size(): number {
    return this.records.size;
  }

  get(buf: number): TerminalState | undefined {
    const r = this.records.get(buf);
    return r && publicState(r);
  }

  all(): TerminalState[] {
    return [...this.records.values()].map(publicState);
  }

  /** Feeds one screen. Returns the change, or null when agent, state and detail are as they were. */
  screen(buf: number, screen: Screen, now: number): StateChange | null {
    const record = this.records.get(buf);
    if (record?.exited) return null;
    // A terminal that has drawn nothing yet says nothing about its program: no "Shell" flash.
    // (Its title is then the command Neovim started, which says nothing either.)
    if (!record && screen.lines.every((l) => l.trim() === '')) return null;
    const detection = detect(screen, record && { agent: record.agent, state: record.state });
    return this.apply(buf, record, detection, now);
  }

  /** The terminal's job ended. */
  exit(buf: number, status: number, now: number): StateChange | null {
    const record = this.records.get(buf);
    const detection: Detection = {
      agent: record?.agent ?? 'shell',
      state: 'exited',
      source: 'terminal',
      detail: `exit ${status}`,
    };
    const change = this.apply(buf, record, detection, now);
    this.records.get(buf)!.exited = true;
    return change;
  }

  forget(buf: number): boolean {
    return this.records.delete(buf);
  }

  private apply(
    buf: number,
    record: TerminalRecord | undefined,
    detection: Detection,
    now: number,
  ): StateChange | null {
    let done: StateChange['done'];
    const next: TerminalRecord = record ?? {
      buf,
      agent: detection.agent,
      state: detection.state,
      source: detection.source,
      detail: detection.detail,
      since: now,
      workedSinceCompletion: false,
      exited: false,
    };
    if (detection.state === 'working') next.workedSinceCompletion = true;
    if (detection.completion !== undefined) {
      // A completion already on a terminal's first screen is history (a resumed session, or this
      // process restarted): it is remembered, not announced.
      const fresh =
        record !== undefined && (detection.completion !== next.lastCompletion || next.workedSinceCompletion);
      if (fresh) done = { line: detection.detail };
      if (fresh || !record) {
        next.lastCompletion = detection.completion;
        next.workedSinceCompletion = false;
      }
    }
    const previous = record ? record.state : null;
    const changed =
      !record ||
      record.agent !== detection.agent ||
      record.state !== detection.state ||
      record.detail !== detection.detail ||
      record.source !== detection.source ||
      done !== undefined;
    if (!changed) return null;
    if (record && (record.state !== detection.state || record.agent !== detection.agent || done)) next.since = now;
    next.agent = detection.agent;
    next.state = detection.state;
    next.source = detection.source;
    next.detail = detection.detail;
    this.records.set(buf, next);
    const change: StateChange = { ...publicState(next), previous };
    if (done) change.done = done;
    return change;
  }
}

function publicState(r: TerminalRecord): TerminalState {
  return { buf: r.buf, agent: r.agent, state: r.state, source: r.source, detail: r.detail, since: r.since };
}
