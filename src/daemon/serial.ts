// Operations on one job run one after another (a remove never interleaves with a respawn); those on
// different jobs do not wait for each other.
export class JobQueues {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(short: string, op: () => Promise<T>): Promise<T> {
    const before = this.tails.get(short) ?? Promise.resolve();
    const next = before.then(op, op);
    const tail = next.catch(() => undefined);
    this.tails.set(short, tail);
    void tail.then(() => {
      if (this.tails.get(short) === tail) this.tails.delete(short);
    });
    return next;
  }
}
