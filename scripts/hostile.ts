// Screens that no agent draws but another program may print: long titles and rows built from the
// characters the detection rules look for. The bench times every detector on them; the unit tests
// check what the detectors make of them.
import type { Screen } from '../src/detect/index.js';

const K100 = 100_000;
const repeat = (unit: string, size = K100): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** Rows and titles of 100 KB of what the rules match piece by piece, but never whole. */
const PIECES = [
  ' ',
  '─',
  '│ ',
  '✶ ',
  '⠋ ',
  'for 1h ',
  '1 ',
  'a ',
  'Worked for ',
  '✻ Baked ',
  '❯ ',
  '› ',
  '> ',
  '1. ',
  '? ',
  ' - amp ',
  '▣ Build · ',
  '⬝■',
  'esc ',
  'Allow ',
  '(y/n',
  'Saut',
  '\t',
  '… ',
  '…',
  '.. ',
];

export const HOSTILE_SCREENS: { name: string; screen: Screen }[] = [
  ...PIECES.map((p) => ({
    name: `a 100 KB title of ${JSON.stringify(p)}`,
    screen: { lines: ['$ '], title: repeat(p) },
  })),
  ...PIECES.map((p) => ({ name: `a 100 KB row of ${JSON.stringify(p)}`, screen: { lines: [repeat(p)], title: '' } })),
  ...PIECES.map((p) => ({
    name: `400 rows of ${JSON.stringify(p)}`,
    screen: { lines: Array.from({ length: 400 }, () => repeat(p, 2000)), title: repeat(p, 2000) },
  })),
  {
    name: 'an Amp title with a 100 KB middle',
    screen: { lines: ['Welcome to Amp'], title: `⠋ ${repeat(' ')} - amp - ${repeat('x')}` },
  },
  {
    name: 'a Claude spinner row of 100 KB',
    screen: { lines: ['Claude Code', `✶ ${repeat('A')}ing…`], title: `⠋ ${repeat(' ')}Claude Code` },
  },
];
