// The operations (one file each, op.ts) by name, and their lines of `mado --help`.
import type { Op } from './op.js';
import { OPS } from './registry.js';
import { wrapWords } from '../shared/text.js';

export type { Op, OpContext, StdinUse } from './op.js';
export { OPS };

/** The operation named `name`, if there is one. */
export function opNamed(name: string): Op | undefined {
  return OPS.find((o) => o.name === name);
}

/** The operation whose command-line verb `verb` is (`--bg` is dispatch's), if there is one. */
export function opOfVerb(verb: string): Op | undefined {
  return OPS.find((o) => o.verbs.includes(verb));
}

/** Every operation's command-line verbs. */
export function opVerbs(): string[] {
  return OPS.flatMap((o) => o.verbs);
}

/**
 * Its usage (`mado …`) in lines of at most `width`, cut between its words and bracketed groups (never
 * inside a `[…]`); the lines after the first are to be indented by the caller's continuation.
 */
export function usageLines(op: Op, width: number): string[] {
  const groups: string[] = [];
  let depth = 0;
  for (const word of `mado ${op.usage}`.split(' ')) {
    if (depth > 0) groups[groups.length - 1] += ` ${word}`;
    else groups.push(word);
    depth += (word.match(/\[/g)?.length ?? 0) - (word.match(/\]/g)?.length ?? 0);
  }
  const lines: string[] = [];
  for (const group of groups) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + 1 + group.length <= width) lines[last] += ` ${group}`;
    else lines.push(group);
  }
  return lines;
}

/** Their usage lines for `mado --help`, as its other lines are laid out. */
export function opsHelp(): string {
  const column = ' '.repeat(28);
  return OPS.map((o) => {
    const usage = `  ${usageLines(o, 86).join('\n            ')}`;
    const summary = wrapWords(o.summary, 70).replace(/\n/g, `\n${column}`);
    return usage.length < column.length ? `${usage.padEnd(column.length)}${summary}` : `${usage}\n${column}${summary}`;
  }).join('\n');
}
