// The ends of a route as the user names them in Neovim (`:MadoRoute`, `madohub.route()`), made fleet
// ids here, once: a buffer number (a terminal, a job's view, or — as a target — a file buffer), a
// fleet id, `file:PATH`, a terminal's or a job's name, a job's id or prefix. What only Neovim knows of
// a buffer (its type, its name, the job its view shows) is asked of Neovim's API.
import { homedir } from 'node:os';
import path from 'node:path';
import type { FleetHub } from '../fleet/hub.js';
import { bufId, fileId, jobId, parseFleetId, termId } from '../shared/fleet-id.js';

/** What the ends are read against: the fleet, Neovim's buffers, and the user's current buffer and folder. */
export interface EndContext {
  hub: FleetHub;
  buffers: BufferFacts;
  /** The buffer the user is in (the source when none is named, and `0`). */
  current: number;
  /** The user's folder (a relative `file:` path starts there). */
  cwd: string;
}

/** What Neovim says of one of its buffers; undefined for a buffer it has not. */
export interface BufferFacts {
  of(buf: number): Promise<{ file: boolean; name: string; job?: string } | undefined>;
}

export type End = { id: string } | { error: string };

/**
 * `what` as a route's source or target: its fleet id (`term:12`, `job:1a2b3c4d`, `buf:3`, `file:/abs`), or
 * why it names none.
 */
export async function resolveEnd(what: string | number, role: 'source' | 'target', ctx: EndContext): Promise<End> {
  const entries = ctx.hub.all();
  if (typeof what === 'number' || /^\d{1,9}$/.test(what)) {
    const buf = Number(what) === 0 ? ctx.current : Number(what);
    if (entries.some((e) => e.id === termId(buf))) return { id: termId(buf) };
    const view = entries.find((e) => e.kind === 'job' && e.buf === buf);
    const facts = await ctx.buffers.of(buf);
    if (view) return { id: view.id };
    if (facts?.job) return { id: jobId(facts.job) };
    if (role === 'target' && facts?.file) return { id: bufId(buf) };
    return { error: `buffer ${buf} is no agent${role === 'target' ? ' and no file buffer' : ''}` };
  }
  if (what === '') return { error: 'name a terminal, a job, a buffer or file:PATH' };
  const given = parseFleetId(what);
  if (given?.kind === 'term' || given?.kind === 'buf' || (given?.kind === 'job' && given.host === ''))
    return { id: what };
  if (given?.kind === 'job')
    return role === 'target' ? { id: what } : { error: "a remote host's job is no source of a route (a target only)" };
  if (what.startsWith('file:')) {
    if (role !== 'target') return { error: 'a file is no source' };
    const file = what.slice(5);
    const expanded = file === '~' || file.startsWith('~/') ? path.join(homedir(), file.slice(1)) : file;
    return { id: fileId(path.resolve(ctx.cwd, expanded)) };
  }
  // A remote host's job is a target only: its turns end there, where this Neovim reads no record.
  const named = entries.filter(
    (e) => (e.kind === 'terminal' || e.kind === 'job') && e.name === what && (role === 'target' || e.host === ''),
  );
  if (named.length === 1) return { id: named[0]!.id };
  if (named.length > 1)
    return { error: `${named.length} agents are named ${JSON.stringify(what)}: ${named.map((e) => e.id).join(', ')}` };
  const job = ctx.hub.job(what);
  if ('short' in job && job.host)
    return role === 'target'
      ? { id: jobId(job.short, job.host) }
      : { error: "a remote host's job is no source of a route (a target only)" };
  if ('short' in job) return { id: jobId(job.short) };
  return { error: `no agent ${JSON.stringify(what.slice(0, 80))}` };
}

/** A target's name for a person: the fleet's name of an entry, a buffer's name, a file's path. */
export async function targetName(id: string, ctx: EndContext): Promise<string> {
  const e = ctx.hub.all().find((x) => x.id === id);
  if (e) return e.name;
  const buf = /^buf:(\d+)$/.exec(id);
  if (buf) {
    const name = (await ctx.buffers.of(Number(buf[1])))?.name ?? '';
    const home = homedir();
    const shown = name.startsWith(`${ctx.cwd}/`)
      ? name.slice(ctx.cwd.length + 1)
      : name.startsWith(`${home}/`)
        ? `~${name.slice(home.length)}`
        : name;
    return shown !== '' ? shown : `buffer ${buf[1]}`;
  }
  return id.replace(/^file:/, '');
}
