#!/usr/bin/env node
// `npm test`'s line check: a line of src/, lua/ and plugin/ is at most MAX columns. As ESLint's
// max-len with ignoreStrings, ignoreTemplateLiterals and ignoreRegExpLiterals, a line of code that
// holds a literal may run longer (a screen's pattern, a message, a query are not cut); a comment
// may not. Prints each line over, and exits 1 when there is one.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 120;
const ROOTS = ['src', 'lua', 'plugin'];

/** A comment line: `//`, `/*`, ` * ` in TypeScript; `--` in Lua. */
const COMMENT = { ts: /^\s*(?:\/\/|\/\*|\*)/, lua: /^\s*--/ };
/** A literal on a line of code: a quoted string, a template, or a regular expression. */
const LITERAL = /(['"`]).*\1|(?:^|[=(,:!&|?{};[]|return)\s*\/(?![/*]).+\/[dgimsuvy]*/;

const files = execFileSync('git', ['ls-files', ...ROOTS], { encoding: 'utf8' })
  .split('\n')
  .filter((f) => /\.(?:ts|lua)$/.test(f));
let over = 0;
for (const file of files) {
  const kind = file.endsWith('.lua') ? 'lua' : 'ts';
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const width = [...line].length;
      if (width <= MAX) return;
      if (!COMMENT[kind].test(line) && LITERAL.test(line)) return;
      over++;
      console.log(`${file}:${i + 1}: ${width} columns`);
    });
}
if (over > 0) {
  console.log(`${over} lines over ${MAX} columns`);
  process.exit(1);
}
