// The daemon's routes on disk (`<jobs dir>/routes.json`, 0600), so that they outlive a daemon that
// leaves while no job runs. Read as hostile input: bounded, checked route by route.
import { chmodSync, copyFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isObj } from '../shared/checks.js';
import { keepAside, readBounded, readJsonBounded, writeAtomic } from '../shared/files.js';
import type { Route } from '../shared/route-types.js';
import { jobOf } from '../shared/fleet-id.js';
import { routeOf } from '../shared/route-check.js';

const FILE = 'routes.json';
/** 200 routes (the engine's bound) of 4 KiB targets at most fit. */
const MAX_BYTES = 1024 * 1024;
const VERSION = 1;

export const routesFile = (jobsDir: string): string => path.join(jobsDir, FILE);

/** A remote host's job as a route's end (`job:<host>:<id>`): its host and id; undefined for the others. */
export function remoteTarget(id: string): { host: string; short: string } | undefined {
  const job = jobOf(id);
  return job && job.host !== '' ? job : undefined;
}

export function readRoutes(jobsDir: string): Route[] {
  const v = readJsonBounded(routesFile(jobsDir), MAX_BYTES);
  if (!isObj(v) || v.version !== VERSION || !Array.isArray(v.routes)) return [];
  return v.routes.map((x) => routeOf(x)).filter((r): r is Route => r !== undefined);
}

/** The routes of the file and what was wrong with it, for a person (`mado route ls`, the daemon's log). */
export interface LoadedRoutes {
  routes: Route[];
  problems: string[];
}

/**
 * The daemon's routes at its start. A file that cannot be read as routes (cut short, too large, not
 * JSON, another version) is kept aside as `routes.json.bad-<time>`, not overwritten by the next
 * `mado route add`; entries that are no routes, and routes past `max`, are left out: each is said.
 */
export function loadRoutes(jobsDir: string, max: number): LoadedRoutes {
  const file = routesFile(jobsDir);
  const r = readBounded(file, MAX_BYTES);
  if (!r.ok && r.missing) return { routes: [], problems: [] };
  let v: unknown;
  let why = r.ok ? '' : r.why;
  if (r.ok) {
    try {
      v = JSON.parse(r.text);
    } catch {
      why = 'not JSON (cut short?)';
    }
    if (!why && (!isObj(v) || v.version !== VERSION || !Array.isArray(v.routes)))
      why = `not routes of version ${VERSION}`;
  }
  if (why) return { routes: [], problems: [`routes.json could not be read (${why}): ${keepAside(file)}`] };
  const entries = (v as { routes: unknown[] }).routes;
  const routes = entries.map((x) => routeOf(x)).filter((x): x is Route => x !== undefined);
  const problems: string[] = [];
  // Others could read or change it (written by hand, or a copy): only its owner may, from now on.
  try {
    const mode = statSync(file).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      chmodSync(file, 0o600);
      problems.push(
        `routes.json could be read or written by others (mode ${mode.toString(8).padStart(4, '0')}): now 0600`,
      );
    }
  } catch (err) {
    problems.push(`routes.json's mode cannot be read or set: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (routes.length < entries.length)
    problems.push(`${entries.length - routes.length} entries of routes.json are no routes: left out`);
  if (routes.length > max) {
    // The file is written again at the next change: the routes past the bound are kept aside first, not lost.
    const aside = `${file}.past-${Date.now()}`;
    try {
      copyFileSync(file, aside);
      chmodSync(aside, 0o600);
      problems.push(
        `${routes.length - max} routes of routes.json are past the bound of ${max} routes: left out (the whole file is kept as ${aside})`,
      );
    } catch (err) {
      problems.push(
        `${routes.length - max} routes of routes.json are past the bound of ${max} routes: left out, and the file could not be kept aside (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      );
    }
  }
  return { routes: routes.slice(0, max), problems };
}

export function writeRoutes(jobsDir: string, routes: readonly Route[]): void {
  writeAtomic(routesFile(jobsDir), `${JSON.stringify({ version: VERSION, routes }, null, 2)}\n`);
}
