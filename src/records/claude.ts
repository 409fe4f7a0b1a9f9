import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { claudeSession, claudeTranscriptRecord } from '../detect/records.js';
import type { RecordSignal } from '../detect/records.js';
import type { FolderWatcher } from './folders.js';
import { followJsonl } from './follow.js';

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
  private stopTranscript?: () => void;
  private transcriptFile?: string;
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

  start(): void {
    this.stopSession = this.folders.watch(path.dirname(this.sessionFile), (file, event) => {
      if (event === 'ready' || file === this.sessionFile) void this.readSession();
    });
    void this.readSession();
  }

  stop(): void {
    this.stopped = true;
    this.stopSession?.();
    this.stopTranscript?.();
  }

  private async readSession(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.sessionFile, 'utf8');
    } catch {
      return; // Not written yet, or the session ended.
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.log.debug(`claude session file ${this.sessionFile}: not JSON (being written?)`);
      return;
    }
    const session = claudeSession(value);
    if (!session || this.stopped) return;
    this.emit(session.signal);
    if (session.cwd) this.follow(claudeTranscriptPath(this.configDir, session.cwd, session.sessionId));
  }

  private follow(file: string): void {
    if (this.transcriptFile === file) return;
    this.stopTranscript?.();
    this.transcriptFile = file;
    this.stopTranscript = followJsonl(file, this.folders, claudeTranscriptRecord, this.emit, (line) =>
      this.log.debug(`claude transcript ${file}: skipped a line that is not JSON: ${line.slice(0, 80)}`),
    );
  }
}
