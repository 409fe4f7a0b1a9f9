// The channels a notice goes out on, by the place that tells it: a Neovim (the desktop and the
// terminal it runs in) and the daemon (the desktop alone: it runs in no terminal). A new channel is its
// file and its line here.
import type { ChannelContext, NoticeChannel } from './channel.js';
import { DesktopChannel } from './desktop.js';
import { OuterTerminalChannel } from './outer-terminal.js';

export type { ChannelHealth, EditorParts, NoticeChannel } from './channel.js';

/** Each channel, and the places it tells from. */
const CHANNELS: readonly { make: (ctx: ChannelContext) => NoticeChannel; places: readonly ('nvim' | 'daemon')[] }[] = [
  { make: (ctx) => new DesktopChannel(ctx), places: ['nvim', 'daemon'] },
  { make: (ctx) => new OuterTerminalChannel(ctx), places: ['nvim'] },
];

/** The channels of `place`, made for it. */
export function channelsOf(place: 'nvim' | 'daemon', ctx: ChannelContext): NoticeChannel[] {
  return CHANNELS.filter((c) => c.places.includes(place)).map((c) => c.make(ctx));
}
