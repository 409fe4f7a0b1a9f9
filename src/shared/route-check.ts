// A route as another program wrote it (routes.json, a daemon's answer, what Lua kept): checked field
// by field, its ends by where routes may go from and to.
import { isObj } from './checks.js';
import type { Check } from './checks.js';
import { idIsOf } from './fleet-id.js';
import type { IdKinds } from './fleet-id.js';
import { MAX_HOPS, ROUTE_ONS, ROUTE_SENDS } from './route-types.js';
import type { Route, RouteOn, RouteSend } from './route-types.js';

/**
 * What a route's ends may be: the daemon's (from a job of this machine, to a job of any host or a
 * file), or a Neovim's (from a terminal or a job of this machine, to those, a remote host's job, a
 * buffer or a file).
 */
export interface RouteEnds {
  source: IdKinds;
  target: IdKinds;
}
export const DAEMON_ENDS: RouteEnds = {
  source: { kinds: ['job'], remoteJobs: false },
  target: { kinds: ['job', 'file'], remoteJobs: true },
};
export const NEOVIM_ENDS: RouteEnds = {
  source: { kinds: ['term', 'job'], remoteJobs: false },
  target: { kinds: ['term', 'job', 'buf', 'file'], remoteJobs: true },
};

/** A route read from the file (or kept by Lua), or undefined when it is none. */
export function routeOf(v: unknown, ends: RouteEnds = DAEMON_ENDS): Route | undefined {
  if (!isObj(v)) return undefined;
  const s = (x: unknown, max: number): string | undefined => (typeof x === 'string' && x.length <= max ? x : undefined);
  const id = s(v.id, 16);
  const source = s(v.source, 64);
  const target = s(v.target, 4096);
  if (!id || !/^\w+$/.test(id) || !source || !idIsOf(source, ends.source) || !target || !idIsOf(target, ends.target))
    return undefined;
  if (!ROUTE_ONS.includes(v.on as RouteOn) || !ROUTE_SENDS.includes(v.send as RouteSend)) return undefined;
  const hops =
    typeof v.hops === 'number' && Number.isInteger(v.hops) && v.hops >= 1 && v.hops <= MAX_HOPS ? v.hops : undefined;
  if (hops === undefined) return undefined;
  return {
    id,
    source,
    target,
    targetName: s(v.targetName, 200) ?? target,
    on: v.on as RouteOn,
    send: v.send as RouteSend,
    template: s(v.template, 40) ?? '',
    hops,
    once: v.once === true,
    // The daemon opens no review; a Neovim's route keeps its own.
    review: ends === NEOVIM_ENDS && v.review === true,
    paused: v.paused === true,
    createdAt: typeof v.createdAt === 'number' ? v.createdAt : 0,
  };
}

/** A daemon's list of its routes, each one checked. */
export const daemonRoutes: Check<Route[]> = (v) =>
  Array.isArray(v) && v.length <= 1000 && v.every((r) => routeOf(r) !== undefined) ? null : 'a list of routes';
