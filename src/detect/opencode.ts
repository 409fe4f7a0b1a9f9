import { SHARED_RULES } from './common.js';
import type { AgentRules } from './types.js';

/** OpenCode (1.18). Its identity from the process tree comes later; this is what its screen shows. */
export const opencode: AgentRules = {
  id: 'opencode',
  markers: [/tab agents\s+ctrl\+p commands/, /△ Permission required/, /^\s*▣\s+\S+\s+·/, /opencode/i],
  titleMarkers: [/\bopencode\b/i],
  lines: [
    { state: 'waiting', test: /△ Permission required|Allow once\s+Allow always\s+Reject/ },
    // Its progress bar (`⬝⬝■■ … esc interrupt`) and the hint; the hint alone tells.
    { state: 'working', test: /esc interrupt/ },
    // `▣  Build · <model> · 10.8s`: the footer of a finished answer.
    { state: 'stopped', test: /^\s*▣\s+\S.*·\s*\d+(?:\.\d+)?s\s*$/, completion: true },
    ...SHARED_RULES,
    { state: 'idle', test: /Ask anything…|ctrl\+p commands/, hint: true },
  ],
  titles: [],
};
