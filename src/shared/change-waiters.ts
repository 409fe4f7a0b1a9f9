// Waiting, within a bound, for a condition that something that changes (a screen) makes true: each
// change pokes the waiters, which check their condition again. Nothing polls, and nothing waits longer
// than its bound.

export class ChangeWaiters {
  private readonly waiting = new Set<() => void>();

  /** Resolves true once `ready()` holds (checked now and at each poke), false when `ms` have passed first. */
  until(ready: () => boolean, ms: number): Promise<boolean> {
    if (ready()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = (): void => {
        if (!ready()) return;
        finish(true);
      };
      const finish = (ok: boolean): void => {
        clearTimeout(timer);
        this.waiting.delete(check);
        resolve(ok);
      };
      const timer = setTimeout(() => finish(ready()), ms);
      timer.unref?.();
      this.waiting.add(check);
    });
  }

  /** Something changed: every waiter checks its condition again. */
  poke(): void {
    for (const check of [...this.waiting]) check();
  }
}
