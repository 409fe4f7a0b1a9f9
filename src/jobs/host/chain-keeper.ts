// The host's side of a route chain: the chain that reached its job (chain-record.ts), set by a
// route's text, ended by the user's own input (a reply with no chain, or Enter typed by someone
// attached), and none when the job starts.
import { writeChain } from '../chain-record.js';
import type { Chain } from '../chain-record.js';

/** Whether what an attached client sent has an Enter typed in it (not the one a terminal's own reports end with). */
export function typedEnter(data: string): boolean {
  if (!data.includes('\r')) return false;
  const keys = data
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\x1bO./g, '');
  return keys.includes('\r');
}

export class ChainKeeper {
  private kept = true;

  constructor(
    private readonly jobDir: string,
    private readonly say: (message: string) => void,
    /** The turns the job has ended (its file's count): a chain is that of the turn after them. */
    private readonly turns: () => number | undefined = () => undefined,
  ) {
    // A job (started again, too) starts with no chain.
    this.keep(undefined);
  }

  /** A reply was taken: a route's text goes on its chain, the user's own ends it. */
  replied(chain: Chain | undefined): void {
    this.keep(chain);
  }

  /** Someone attached typed `data`. */
  typed(data: string): void {
    if (this.kept && typedEnter(data)) this.keep(undefined);
  }

  private keep(chain: Chain | undefined): void {
    if (!chain && !this.kept) return;
    try {
      writeChain(this.jobDir, chain, chain ? this.turns() : undefined);
      this.kept = chain !== undefined;
    } catch (err) {
      this.say(
        `the route chain could not be kept (${err instanceof Error ? err.message : String(err)}): a route from this job starts a chain of its own`,
      );
    }
  }
}
