// A plain shell: what a terminal runs when no agent does, and a job template of its own.
// Everything MadoHub knows of it: see types.ts.
import type { AgentModule } from './types.js';

export const shell: AgentModule = {
  id: 'shell',
  displayName: 'Shell',
  fallback: true,
  bracketedPaste: false,
  // A shell has no screen of its own: its prompt is known by src/detect/index.ts (atShellPrompt).
  screen: { id: 'shell', markers: [], titleMarkers: [], lines: [], titles: [] },
  template: { description: 'A login shell', command: [process.env.SHELL || 'bash', '-l'], prompt: 'type' },
  env: { names: [], prefixes: [] },
};
