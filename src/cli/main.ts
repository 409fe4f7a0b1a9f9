import { readFileSync } from 'node:fs';
import { runDetect, UsageError } from './detect.js';

const HELP = `mado — MadoHub's command line

Usage:
  mado detect [FILE | -] [--title TITLE]
      Print {agent, state, source, detail} as one JSON line for a captured terminal screen
      (a file, or standard input), read by the same detectors the Neovim plugin uses.
  mado --help
`;

function main(argv: string[]): number {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    process.stdout.write(HELP);
    return verb === undefined ? 2 : 0;
  }
  try {
    if (verb === 'detect') {
      process.stdout.write(`${runDetect(rest, () => readFileSync(0, 'utf8'))}\n`);
      return 0;
    }
    process.stderr.write(`mado: unknown command '${verb}' (see mado --help)\n`);
    return 2;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`mado ${verb}: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

process.exitCode = main(process.argv.slice(2));
