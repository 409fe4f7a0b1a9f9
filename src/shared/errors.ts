/** Bad arguments or input: the CLI prints the message and exits 2. */
export class UsageError extends Error {}

/** A failure the CLI reports with exit status 1 (not a usage error). */
export class JobError extends Error {}

/**
 * A target that cannot be reached for now (its host offline), found before anything was handed to
 * it: what was to be delivered may wait for it, and cannot have arrived twice.
 */
export class TargetOffline extends Error {}
