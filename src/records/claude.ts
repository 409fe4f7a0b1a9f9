import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { claudeSession, claudeTranscriptRecord } from '../detect/records.js';
import type { RecordSignal } from '../detect/records.js';
import type { FolderWatcher } from './folders.js';
import { followJsonl, settled } from './follow.js';

/** Claude Code's folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR || path.join(env.HOME || homedir(), '.claude');
}

/** `~/.claude/projects/<cwd with each character that is not a letter or digit turned into ->/<id>.jsonl`. */
export function claudeTranscriptPath(configDir: string, cwd: string, sessionId: string): string {
  return path.join(configDir, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), `${sessionId}.jsonl`);
}

export interface RecordLog {
  debug(message: string): void;
}

/**
 * Follows one Claude Code process's records: its session file (`sessions/<pid>.json`, live status)
 * and the transcript of the session it names (turn ends). Each read reports only its last signal,
 * so that a backlog does not replay old turns.
 */
export class ClaudeRecords {
  private readonly sessionFile: string;
  private stopSession?: () => void;
  private transcript?: { stop(): void; poke(): void };
  private transcriptFile?: string;
  /** The session id the session file names (for resuming it elsewhere). */
  sessionId?: string;

  /** The transcript followed, once the session file has named it. */
  get recordFile(): string | undefined {
    return this.transcriptFile;
  }

  private stopped = false;

  constructor(
    private readonly configDir: string,
    readonly pid: number,
    private readonly folders: FolderWatcher,
    private readonly emit: (signal: RecordSignal) => void,
    private readonly log: RecordLog,
  ) {
    this.sessionFile = path.join(configDir, 'sessions', `${pid}.json`);
  }

  private readonly reader = settled(() => void this.readSession());
  private lastText?: string;

  start(): void {
    this.stopSession = this.folders.watch(path.dirname(this.sessionFile), (file, event) => {
      if (event === 'ready' || file === this.sessionFile) this.poke();
    });
    this.reader.poke();
  }

  stop(): void {
    this.stopped = true;
    this.reader.cancel();
    this.stopSession?.();
    this.transcript?.stop();
  }

  /** Reads again what may have changed (the terminal's screen changed: the records may have too). */
  poke(): void {
    this.reader.poke();
    this.transcript?.poke();
  }

  private async readSession(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.sessionFile, 'utf8');
    } catch {
      return; // Not written yet, or the session ended.
    }
    if (text === this.lastText) return; // The settling re-read of a file that did not change.
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.log.debug(`claude session file ${this.sessionFile}: not JSON (being written?)`);
      return;
    }
    const session = claudeSession(value);
    if (!session || this.stopped) return;
    this.lastText = text;
    this.sessionId = session.sessionId;
    this.emit(session.signal);
    if (session.cwd) this.follow(claudeTranscriptPath(this.configDir, session.cwd, session.sessionId));
  }

  private follow(file: string): void {
    if (this.transcriptFile === file) return;
    this.transcript?.stop();
    this.transcriptFile = file;
    this.transcript = followJsonl(file, this.folders, claudeTranscriptRecord, this.emit, (line) =>
      this.log.debug(`claude transcript ${file}: skipped a line that is not JSON: ${line.slice(0, 80)}`),
    );
  }
}
