// The tests' one way to wait: on a condition, never on a fixed time. A test that passes on a quiet
// machine and fails under load waited for a time where it meant a condition. What is about time
// itself (a pace, a window, a race between two writes) says so through `elapse`, the one sleep.

/** How often a condition is looked at. */
export const POLL_MS = 20;

/** What a condition may be: a value now, or one to wait for. */
type Check = () => boolean | Promise<boolean>;

/** Lets `ms` pass: only for what is about time itself (a pace's window, a write that must come later). */
export function elapse(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `check()` holds, at most `ms`, looking every `pollMs`; whether it held. */
export async function until(check: Check, ms = 5000, pollMs = POLL_MS): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= end) return false;
    await elapse(pollMs);
  }
}

/**
 * Reads `read()` until `ok` holds of what it gives, at most `ms`, every `pollMs` (a read that runs a
 * program looks less often); the last value read.
 */
export async function untilValue<T>(
  read: () => T | Promise<T>,
  ok: (value: T) => boolean,
  ms = 10000,
  pollMs = POLL_MS,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() >= end) return value;
    await elapse(pollMs);
  }
}

/**
 * Whether `check()` holds all through `ms` (looked at every `pollMs`, and once more at the end): what
 * must not happen within a window does not. False the moment it fails.
 */
export async function holds(check: Check, ms: number, pollMs = POLL_MS): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (!(await check())) return false;
    if (Date.now() >= end) return true;
    await elapse(Math.min(pollMs, Math.max(0, end - Date.now())));
  }
}

/** Waits until `check()` holds, at most `ms`; throws, naming `what`, when it did not. */
export async function waitFor(check: Check, ms = 5000, what = 'the condition'): Promise<void> {
  if (!(await until(check, ms))) throw new Error(`waited ${ms} ms for ${what}: it did not come`);
}
