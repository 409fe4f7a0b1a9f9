// The chain of routed text that reached a job last (its id, its hop, the entries it reached), kept
// by the job's host in the job's folder. Every place whose routes fire from the job (the daemon, each
// Neovim) reads it there, so that a payload goes on one chain whichever place delivered it: a cycle
// through the daemon's routes and a Neovim's stops at the entry it reached, or at its hops.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { isObj } from '../shared/checks.js';
import type { Check } from '../shared/checks.js';
import { readJsonBounded, writeAtomic } from '../shared/files.js';
import type { Chain } from '../shared/route-types.js';

export type { Chain };

export const CHAIN_FILE = 'chain.json';
/** The most hops a chain counts (a route's `hops` is at most this), and so the most entries it reaches. */
export const MAX_CHAIN_HOPS = 100;
const MAX_ENTRY_CHARS = 300;

/** A chain as read from a request or a file, or undefined when the value is none. */
export function chainOf(v: unknown): Chain | undefined {
  if (!isObj(v)) return undefined;
  const { id, hop, visited } = v;
  if (typeof id !== 'string' || !/^[0-9a-f]{1,32}$/.test(id)) return undefined;
  if (typeof hop !== 'number' || !Number.isInteger(hop) || hop < 1 || hop > MAX_CHAIN_HOPS) return undefined;
  if (!Array.isArray(visited) || visited.length < 2 || visited.length > MAX_CHAIN_HOPS + 1) return undefined;
  if (!visited.every((e): e is string => typeof e === 'string' && e.length > 0 && e.length <= MAX_ENTRY_CHARS)) return undefined;
  return { id, hop, visited: [...visited] };
}

/** The protocol's check of a chain. */
export const chainCheck: Check = (v) => (chainOf(v) ? null : 'a chain ({ id, hop, visited })');

/** The chain that reached the job of `jobDir` last; undefined when none did (or its file is none). */
export function readChain(jobDir: string): Chain | undefined {
  return chainOf(readJsonBounded(path.join(jobDir, CHAIN_FILE), 16 * 1024));
}

/** Keeps the chain that reached the job (undefined: the user's own input reached it, and ends it). */
export function writeChain(jobDir: string, chain: Chain | undefined): void {
  const file = path.join(jobDir, CHAIN_FILE);
  if (chain) writeAtomic(file, `${JSON.stringify(chain)}\n`);
  else rmSync(file, { force: true });
}

/**
 * The chain that reached fleet entry `entry` when it is a job of `jobsDir` (its host keeps it);
 * undefined when the entry is no job, whose chain the place that delivered to it keeps.
 */
export function jobChain(jobsDir: string, entry: string): { chain: Chain | undefined } | undefined {
  const job = /^job:([0-9a-f]{8})$/.exec(entry);
  return job ? { chain: readChain(path.join(jobsDir, job[1]!)) } : undefined;
}
