// The job verbs of `mado` that are no operation of their own (src/ops/), one list: run here (cli/jobs.ts)
// and on a host as they run here (cli/remote.ts).
export const JOB_VERBS = ['attach'];
