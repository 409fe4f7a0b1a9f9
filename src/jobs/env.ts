// The environments of a job's agent and of the daemon. A job's environment is never written to
// disk: a client cuts its own environment to the job's names and sends it with the dispatch (or
// the respawn); the daemon hands it to the host on the host's standard input.
import { AGENT_MODULES } from '../agents/index.js';

/** Names every job gets: how a program finds its tools, its locale, its terminal, its proxy and CA. */
export const ENV_NAMES = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'TERM',
  'COLORTERM',
  'TMPDIR',
  'TZ',
  'EDITOR',
  'VISUAL',
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
  'ALL_PROXY',
  'all_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
];
export const ENV_PREFIXES = ['LC_', 'XDG_'];

/**
 * The part of `env` a job gets: the common names, every agent's own variables (from its module: a
 * template may run any agent), and `$MADOHUB_JOB_ENV`'s names (or `PREFIX_*`), comma-separated. Nothing else.
 */
export function jobEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const named = namedByJob(env);
  const agents = AGENT_MODULES.map((a) => a.env);
  const names = new Set([...ENV_NAMES, ...agents.flatMap((a) => a.names), ...named.names]);
  const prefixes = [...ENV_PREFIXES, ...agents.flatMap((a) => a.prefixes), ...named.prefixes];
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (names.has(k) || prefixes.some((p) => k.startsWith(p))) out[k] = v;
  }
  return out;
}

/**
 * The variables a job names ($MADOHUB_JOB_ENV: names, or `PREFIX_*`), from `env`, and nothing else:
 * what of this machine's environment goes with a job started on a remote host.
 */
export function namedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const { names, prefixes } = namedByJob(env);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || k.startsWith('MADOHUB_')) continue;
    if (names.includes(k) || prefixes.some((p) => k.startsWith(p))) out[k] = v;
  }
  return out;
}

/** `$MADOHUB_JOB_ENV`, comma-separated: the names it gives, and the prefixes of its `PREFIX_*`. */
function namedByJob(env: NodeJS.ProcessEnv): { names: string[]; prefixes: string[] } {
  const extra = (env.MADOHUB_JOB_ENV ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    names: extra.filter((e) => !e.endsWith('*')),
    prefixes: extra.filter((e) => e.endsWith('*')).map((e) => e.slice(0, -1)),
  };
}

/**
 * The Node of the processes that last, the daemon and the hosts: a young generation of at most 1 MiB a
 * half. Each dispatch, each turn leaves them short-lived garbage, and the default V8 let the young
 * generation (and with it the heap) grow: the daemon ~25 MiB more over 600 dispatches, the live heap a
 * steady 7 MiB (bench (v)); each host of the soak 5 MiB in 10 minutes of turns (bench (w)). V8 sized
 * for memory, not speed: with it alone a busy host's heap kept growing though what lives in it did not
 * (3 hosts, a turn a second, 10 minutes: heap used after a collection flat at 8.2 MiB, the heap V8
 * kept 11.4 → 12.6 MiB, PSS 22.0 → 22.9); with `--optimize-for-size` PSS stayed at 19 MiB (flat) for
 * 5% more CPU a turn (`--lite-mode`: 16 MiB for 40% more). And `gc`, for a collection once a spell of
 * work is over (shared/at-rest.ts).
 */
export const LASTING_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--optimize-for-size', '--expose-gc'];

/**
 * What the daemon (and the hosts, before a job's own environment is added) run with: where to find
 * programs and files, the locale, MadoHub's own settings, and where the links' commands connect (ssh's
 * agent socket, Docker's and Kubernetes' settings). No key, no token.
 */
export function daemonEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // The links to remote hosts run the user's ssh (its agent's socket), docker or kubectl (where they connect).
  const keep = new Set([
    'PATH',
    'HOME',
    'USER',
    'LOGNAME',
    'LANG',
    'TZ',
    'TMPDIR',
    'SHELL',
    'SSH_AUTH_SOCK',
    'DOCKER_HOST',
    'DOCKER_CONTEXT',
    'KUBECONFIG',
  ]);
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && (keep.has(k) || k.startsWith('LC_') || k.startsWith('XDG_') || k.startsWith('MADOHUB_')))
      out[k] = v;
  }
  // One malloc arena, as a process of one thread mostly is: the threads that read files for Node kept
  // arenas of their own, which grew with each dispatch and never gave back (bench (v); glibc's, others ignore it).
  out.MALLOC_ARENA_MAX = '1';
  return out;
}
