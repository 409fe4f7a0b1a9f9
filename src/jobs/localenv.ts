// The environment of mado's own Node processes (the daemon and the hosts).

/**
 * `env` without NODE_EXTRA_CA_CERTS. Node 20 with OpenSSL 3 parses that file before it runs any code
 * (about 40 ms for a system CA bundle), and these processes speak only on local sockets. The agents
 * still get it: a job's environment travels in its launch file, not in its host's environment.
 */
export function localNodeEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  delete out.NODE_EXTRA_CA_CERTS;
  return out;
}
