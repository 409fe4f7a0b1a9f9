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
import { readJob } from './store.js';
import { localJobShort } from '../shared/fleet-id.js';

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
  if (!visited.every((e): e is string => typeof e === 'string' && e.length > 0 && e.length <= MAX_ENTRY_CHARS))
    return undefined;
  return { id, hop, visited: [...visited] };
}

/** The protocol's check of a chain. */
export const chainCheck: Check<Chain> = (v) => (chainOf(v) ? null : 'a chain ({ id, hop, visited })');

/**
 * The chain that reached the job of `jobDir` last, and the turns its job had ended then (undefined in an
 * older file).
 */
function readChainRecord(jobDir: string): { chain: Chain; turnsAt: number | undefined } | undefined {
  const v = readJsonBounded(path.join(jobDir, CHAIN_FILE), 16 * 1024);
  const chain = chainOf(v);
  if (!chain || !isObj(v)) return undefined;
  const turnsAt =
    typeof v.turnsAt === 'number' && Number.isSafeInteger(v.turnsAt) && v.turnsAt >= 0 ? v.turnsAt : undefined;
  return { chain, turnsAt };
}

/** The chain that reached the job of `jobDir` last; undefined when none did (or its file is none). */
export function readChain(jobDir: string): Chain | undefined {
  return readChainRecord(jobDir)?.chain;
}

/**
 * The chain of the job's turn that ends as its `turns`-th: the chain delivered for it, which ends with
 * that turn; undefined for a later turn (the job went on of its own, or by an answer to its menu).
 */
export function chainOfTurn(jobDir: string, turns: number): Chain | undefined {
  const r = readChainRecord(jobDir);
  return r && (r.turnsAt === undefined || turns <= r.turnsAt + 1) ? r.chain : undefined;
}

/**
 * Keeps the chain that reached the job, with the turns it had ended then (the chain is that of the
 * next turn); undefined: the user's own input reached it, and ends it.
 */
export function writeChain(jobDir: string, chain: Chain | undefined, turnsAt?: number): void {
  const file = path.join(jobDir, CHAIN_FILE);
  if (chain) writeAtomic(file, `${JSON.stringify({ ...chain, ...(turnsAt === undefined ? {} : { turnsAt }) })}\n`);
  else rmSync(file, { force: true });
}

/**
 * The chain that reached fleet entry `entry` when it is a job of `jobsDir` (its host keeps it), for
 * the turn it ends now; undefined when the entry is no job, whose chain the place that delivered to it keeps.
 */
export function jobChain(jobsDir: string, entry: string): { chain: Chain | undefined } | undefined {
  const short = localJobShort(entry);
  if (short === undefined) return undefined;
  const read = readJob(jobsDir, short);
  return { chain: chainOfTurn(path.join(jobsDir, short), read.ok ? read.job.turnsEnded : 0) };
}
