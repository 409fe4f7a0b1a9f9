// A Neovim as a person sees it, one per test: started with a UI attached, both ended after the test.
import { afterEach } from 'vitest';
import { startNeovim } from './neovim.js';
import type { Session } from './neovim.js';
import { Screen } from './screen.js';

export interface SeenNeovim {
  s: Session;
  screen: Screen;
}

/** Registers the ending after each test; `start()` starts this test's Neovim `exe` and attaches its UI. */
export function useSeenNeovim(exe: string): {
  start(env?: Record<string, string>, width?: number, height?: number): Promise<SeenNeovim>;
} {
  let s: Session | undefined;
  let screen: Screen | undefined;
  afterEach(async () => {
    await screen?.detach();
    await s?.close();
    s = screen = undefined;
  });
  return {
    async start(env = {}, width = 160, height = 48) {
      s = await startNeovim(exe, env);
      screen = await Screen.attach(s.nvim, width, height);
      return { s, screen };
    },
  };
}
