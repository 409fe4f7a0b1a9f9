// The job verbs of `mado` not yet operations of their own (src/ops/), one list: run here (cli/jobs.ts)
// and on a host as they run here (cli/remote.ts).
export const JOB_VERBS = ['--bg', '--background', 'jobs', 'agents', 'attach', 'route'];
