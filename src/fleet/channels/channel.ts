// A way a notice reaches the user outside the editor: the desktop's notifier, the terminal the editor
// runs in, and the next one (a sound, a push service) as one file of this folder, listed in index.ts.
import type { Notice } from '../attention.js';
import type { NotifySettings } from '../notify-settings.js';

/** What a channel adds to the notice the editor writes itself: bytes for its terminal, a bell. */
export interface EditorParts {
  /** The OSC notification's bytes ('' for none). */
  osc: string;
  bell: boolean;
}

/** A channel as :checkhealth says it: whether it tells anything now, and how, or why not. */
export interface ChannelHealth {
  name: string;
  ok: boolean;
  word: string;
  /** What the user should fix in its settings. */
  problems: string[];
}

export interface NoticeChannel {
  /** Its name, as :checkhealth says it (`Desktop`). */
  readonly name: string;
  /** The user's settings, taken (again): the channel turns itself on or off, and knows why. */
  configure(settings: NotifySettings): void;
  /** Tells a notice that is to be told outside the editor; what it adds to the editor's own notice. */
  tell(notice: Notice): Partial<EditorParts>;
  health(): ChannelHealth;
  stop(): void;
}

/** What a channel may do and say, as the place that runs it gives it. */
export interface ChannelContext {
  env: NodeJS.ProcessEnv;
  debug(m: string): void;
  warn(m: string): void;
  /** A notice clicked ("Go there"): its entry; none where nothing can go there (the daemon). */
  jump?: (entryId: string) => void;
  /** Told when a notice has started to be told (the benchmark). */
  started?: (notice: Notice) => void;
}
