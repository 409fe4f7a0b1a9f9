// Reading another program's SQLite database (OpenCode's session store) with Node's own `node:sqlite`,
// where the Node in use has it (22.13+, 23.4+; 24 LTS), read-only, one short statement at a time.
import { statSync } from 'node:fs';

/** The part of `node:sqlite` used here (its types are not in every @types/node). */
interface Statement {
  all(...params: (string | number | null)[]): unknown[];
}
interface Database {
  prepare(sql: string): Statement;
  close(): void;
}
interface SqliteModule {
  DatabaseSync: new (file: string, options: { readOnly: boolean; timeout?: number }) => Database;
}

/** Whether this Node can read SQLite, and if not, why. */
export type SqliteSupport = { ok: true } | { ok: false; reason: string };

let loaded: SqliteModule | null | undefined;

function load(): SqliteModule | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  try {
    // getBuiltinModule (Node 20.16+, 22.3+) answers undefined where the module is missing; it does
    // not go through the bundler, which would try to resolve `node:sqlite` itself.
    const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
    const mod = get?.call(process, 'node:sqlite') as Partial<SqliteModule> | undefined;
    if (mod && typeof mod.DatabaseSync === 'function') loaded = mod as SqliteModule;
  } catch {
    loaded = null;
  }
  return loaded;
}

export function sqliteSupport(): SqliteSupport {
  if (load()) return { ok: true };
  return { ok: false, reason: `Node ${process.version} has no node:sqlite (Node 22.13 or newer has it)` };
}

/**
 * The rows of one read-only query, or an error: the database is opened for it and closed after, so
 * that no lock or file handle is kept between reads (a writer is never kept waiting by MadoHub, and
 * a database replaced under it is read anew). A busy database is waited for at most `timeoutMs`.
 */
export function queryReadOnly(
  file: string,
  queries: (run: (sql: string, ...params: (string | number | null)[]) => unknown[]) => void,
  timeoutMs = 50,
): { ok: true } | { ok: false; error: string } {
  const sqlite = load();
  if (!sqlite) return { ok: false, error: 'node:sqlite is missing' };
  let db: Database | undefined;
  try {
    // SQLite opens what it is given and waits on a FIFO: a regular file only.
    if (!statSync(file).isFile()) return { ok: false, error: `${file} is not a regular file` };
    db = new sqlite.DatabaseSync(file, { readOnly: true, timeout: timeoutMs });
    const open = db;
    queries((sql, ...params) => open.prepare(sql).all(...params));
    return { ok: true };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  } finally {
    try {
      db?.close();
    } catch {
      // Closed already.
    }
  }
}
