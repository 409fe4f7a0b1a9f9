/** Bad arguments or input: the CLI prints the message and exits 2. */
export class UsageError extends Error {}

/** A failure the CLI reports with exit status 1 (not a usage error). */
export class JobError extends Error {}
