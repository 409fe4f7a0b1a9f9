// The operations (one file each, op.ts) by name, and their lines of `mado --help`.
import type { Op } from './op.js';
import { OPS } from './registry.js';
import { wrapWords } from '../shared/text.js';

export type { Op, OpContext } from './op.js';
export { OPS };

/** The operation named `name`, if there is one. */
export function opNamed(name: string): Op | undefined {
  return OPS.find((o) => o.name === name);
}

/** Their usage lines for `mado --help`, as its other lines are laid out. */
export function opsHelp(): string {
  const column = ' '.repeat(28);
  return OPS.map((o) => {
    const usage = `  mado ${o.usage}`;
    const summary = wrapWords(o.summary, 70).replace(/\n/g, `\n${column}`);
    return usage.length < column.length ? `${usage.padEnd(column.length)}${summary}` : `${usage}\n${column}${summary}`;
  }).join('\n');
}
