// What an agent spends, counted from the record files its follower already reads (no second read):
// each record the follower takes goes through the agent's usage reader into one tally, and its
// sub-agents' files beside it (Claude Code's `<session>/subagents/`) are followed for their usage.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { UsageCounter } from '../usage/tally.js';
import type { UsageTally } from '../usage/tally.js';
import type { AgentUsage } from '../usage/types.js';
import type { FolderWatcher } from './folders.js';
import { JsonlTail } from './tail.js';

/** The most sub-agent files of one session followed. */
export const MAX_SUB_AGENT_FILES = 64;

/** Counts one agent's spending (a terminal's, a job's); tells its tally when it changed. */
export class UsageFeed {
  private counter = new UsageCounter();
  private file?: string;
  private read?: (record: unknown) => void;
  private subs = new Map<string, JsonlTail>();
  private stopSubs?: () => void;
  private stopped = false;

  constructor(
    private readonly spec: AgentUsage,
    private readonly folders: FolderWatcher,
    private readonly sink: (tally: UsageTally) => void,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * The reader of a record file the follower reads, record after record. Another file than the last
   * is another session: its tally starts from nothing (a resumed session's file holds its totals).
   */
  open(file: string): (record: unknown) => void {
    if (file !== this.file || !this.read) {
      this.stopSubs?.();
      this.subs.clear();
      this.file = file;
      this.counter = new UsageCounter();
      this.read = this.reading(file);
      this.followSubAgents(file);
    }
    return this.read;
  }

  /** Tells the tally when it changed since the last time (after each read of a file). */
  flush(): void {
    if (!this.stopped && this.counter.takeChanged()) this.sink(this.counter.tally);
  }

  stop(): void {
    this.stopped = true;
    this.stopSubs?.();
    this.subs.clear();
  }

  private reading(file: string): (record: unknown) => void {
    const read = this.spec.reader();
    const counter = this.counter;
    return (record) => {
      const reading = read(record);
      const refused = reading && counter.add(reading);
      if (refused) this.log(`usage: a record of ${file} refused: ${refused}`);
    };
  }

  private followSubAgents(file: string): void {
    const where = this.spec.subAgentFiles?.(file);
    if (!where) return;
    const take = (name: string): void => {
      const sub = path.join(where.folder, name);
      if (!where.name.test(name) || this.subs.has(sub) || this.subs.size >= MAX_SUB_AGENT_FILES) return;
      const read = this.reading(sub);
      const tail = new JsonlTail(sub, { onRecord: read, early: read, noFollow: () => undefined });
      this.subs.set(sub, tail);
      void tail.read().then(() => this.flush());
    };
    this.stopSubs = this.folders.watch(where.folder, (changed, event) => {
      if (this.stopped) return;
      if (event === 'ready') {
        let names: string[] = [];
        try {
          names = readdirSync(where.folder).slice(0, 10 * MAX_SUB_AGENT_FILES);
        } catch {
          // Not there (yet): its files come as they are written.
        }
        for (const name of names) take(name);
        for (const tail of this.subs.values()) void tail.read().then(() => this.flush());
      } else if (path.dirname(changed) === where.folder) {
        const name = path.basename(changed);
        take(name);
        void this.subs
          .get(changed)
          ?.read()
          .then(() => this.flush());
      }
    });
  }
}
