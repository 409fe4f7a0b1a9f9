// What MadoHub knows of one agent, in one place: src/agents/<name>.ts. The detectors, the process
// classifier, the record watchers, the job templates and environments, and (through the Node
// process) the Lua side read it from there.
import type { RecordSignal } from '../detect/records.js';
import type { AgentId, AgentRules } from '../detect/types.js';
import type { Template } from '../jobs/templates.js';
import type { RecordLog } from '../records/claude.js';
import type { FolderWatcher } from '../records/folders.js';

/** How an agent echoes a submitted prompt above its answer (the intent of a job made from its terminal). */
export interface PromptRule {
  /** A line that echoes a submitted prompt; group 1 is the prompt. */
  line: RegExp;
  /** What the next non-blank line must look like for the prompt to be submitted (not being typed). */
  answered: RegExp;
  /** Placeholders that are not prompts. */
  not?: RegExp;
}

/** How /proc shows the agent: its executable's names, and the script Node runs for it. */
export interface ProcessIdentity {
  names: readonly string[];
  script: RegExp;
}

/** What follows an agent's records for one terminal. */
export interface RecordFollower {
  start(): void;
  stop(): void;
  poke(): void;
  /** The session its records name (to resume it elsewhere). */
  readonly sessionId?: string;
}

export interface RecordContext {
  env: NodeJS.ProcessEnv;
  /** The agent's process, and every process of the terminal (one of which may hold its files open). */
  pid: number;
  pids: readonly number[];
  folders: FolderWatcher;
  /** Record files other terminals follow already. */
  claims: Set<string>;
  emit(signal: RecordSignal): void;
  log: RecordLog;
}

export interface AgentModule {
  id: AgentId;
  /** Its name in the winbar, the messages and the picker. */
  displayName: string;
  /** Its screen rules (markers, lines, titles): pure data, applied by src/detect/index.ts. */
  screen: AgentRules;
  /** None for the shell: a terminal runs a shell when no agent's process runs in it. */
  process?: ProcessIdentity;
  prompt?: PromptRule;
  /** How a background job runs it: its command line, how it is resumed. */
  template: Omit<Template, 'name'>;
  /** The variables it reads for its own configuration, which its jobs get. */
  env: { names: readonly string[]; prefixes: readonly string[] };
  /** Follows its records (session files, transcripts, rollouts) for a terminal, where it writes any. */
  records?(ctx: RecordContext): RecordFollower;
  /**
   * How a choice of its menus (an approval, a trust dialog) is made: the keys that pick choice
   * `choice` when `highlighted` is marked. Undefined: not known for this agent.
   */
  menuKeys?(choice: number, highlighted: number): string;
  /** The text of a finished answer that one of its records holds, or undefined (most records hold none). */
  answerOf?(record: unknown): string | undefined;
}
