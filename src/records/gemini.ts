import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { geminiChatHeader, geminiChatRecord } from '../detect/records.js';
import type { GeminiChatHeader, RecordSignal } from '../detect/records.js';
import { isObj } from '../shared/checks.js';
import { readJsonBounded } from '../shared/files.js';
import { processPlace } from '../proc/shared.js';
import type { RecordLog } from './claude.js';
import type { FolderWatcher } from './folders.js';
import { FoundFile } from './follow.js';
import { firstRecord } from './tail.js';

/** Gemini CLI's folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export function geminiDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini');
}

/** The registry of projects is a small JSON file; a larger one is not read. */
const MAX_REGISTRY_BYTES = 1024 * 1024;
/** The most chat files looked at in one folder. */
const MAX_CHATS = 2000;
const CHAT = /^session-[^/]*\.jsonl$/;
/** A project's short id as Gemini makes them (the folder's name, `-1`, `-2`…): one path segment. */
const SHORT_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The project ids `projects.json` gives `cwd` (0.61: `{"projects": {"<cwd>": "<short id>"}}`). */
function registeredId(dir: string, cwd: string): string | undefined {
  // A regular file only (a FIFO would block), of a bounded size.
  const data = readJsonBounded(path.join(dir, 'projects.json'), MAX_REGISTRY_BYTES);
  const projects = isObj(data) ? data.projects : undefined;
  if (!isObj(projects)) return undefined;
  const id = projects[cwd];
  return typeof id === 'string' && SHORT_ID.test(id) && id !== '.' && id !== '..' ? id : undefined;
}

/**
 * The folders that may hold the chats of a Gemini session working in `cwd`: its project's short id
 * from the registry (0.61), and the SHA-256 of the folder (the versions before the registry).
 */
export function chatFolders(dir: string, cwd: string): string[] {
  const ids = [registeredId(dir, cwd), createHash('sha256').update(cwd).digest('hex')];
  return ids.filter((id): id is string => id !== undefined).map((id) => path.join(dir, 'tmp', id, 'chats'));
}

/** A chat's header (its first line). */
export function readChatHeader(file: string): GeminiChatHeader | undefined {
  return firstRecord(file, geminiChatHeader);
}

/**
 * Which chat belongs to a Gemini process started at `startedAt`: Gemini opens its chat when it
 * starts, so the earliest main chat of its folders that starts with it or after it, and that no other
 * terminal claimed (two Gemini sessions in one folder must not be crossed).
 */
export function findChat(folders: readonly string[], startedAt: number, claimed: ReadonlySet<string>): string | undefined {
  let best: { file: string; startedAt: number } | undefined;
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(folder).filter((n) => CHAT.test(n)).slice(-MAX_CHATS);
    } catch {
      continue;
    }
    for (const name of names) {
      const file = path.join(folder, name);
      if (claimed.has(file)) continue;
      const header = readChatHeader(file);
      if (!header || header.kind !== 'main' || header.startedAt === undefined) continue;
      // A second of slack for the clocks.
      if (header.startedAt < startedAt - 1000) continue;
      if (!best || header.startedAt < best.startedAt) best = { file, startedAt: header.startedAt };
    }
  }
  return best?.file;
}

/** Follows one Gemini process's chat; while it is not found, waits for it in its folders. */
export class GeminiRecords extends FoundFile {
  private readonly waiting = new Set<string>();

  constructor(
    private readonly dir: string,
    readonly pid: number,
    folders: FolderWatcher,
    claims: Set<string>,
    emit: (signal: RecordSignal) => void,
    log: RecordLog,
  ) {
    super(folders, claims, geminiChatRecord, emit, log, `gemini pid ${pid}`);
  }

  protected sessionIn(file: string): string | undefined {
    return readChatHeader(file)?.sessionId;
  }

  protected find(): string | undefined {
    const place = processPlace(this.pid);
    if (!place) return undefined;
    const candidates = chatFolders(this.dir, place.cwd);
    const file = findChat(candidates, place.startedAt, this.claims);
    // Wait in its folders, and in Gemini's own: the registry may name the project only once Gemini has started.
    if (!file) for (const dir of [this.dir, ...candidates]) this.waitIn(dir);
    return file;
  }

  private waitIn(dir: string): void {
    if (this.waiting.has(dir)) return;
    this.waiting.add(dir);
    this.wait(
      this.folders.watch(dir, (file, event) => {
        const name = path.basename(file);
        if (event === 'ready' || ((event === 'add' || event === 'change') && (CHAT.test(name) || name === 'projects.json'))) this.look();
      }),
    );
  }
}
