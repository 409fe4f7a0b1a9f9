// Writes a generated registry: the list of every module of a folder that exports one entry of a
// kind (an agent, an operation), so that a new one is its file and nothing more.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The text of the registry of `dir`: each `.ts` file but `own` whose text `entry` matches (its first
 * group the exported name), imported and listed as `exported: readonly type[]`.
 * @param {{ dir: string, entry: RegExp, own: string[], header: string[], type: string, typeFrom: string, exported: string, what: string }} kind
 */
export function registryText(kind) {
  const found = [];
  for (const file of readdirSync(kind.dir)
    .filter((f) => f.endsWith('.ts') && !kind.own.includes(f))
    .sort()) {
    const m = kind.entry.exec(readFileSync(path.join(kind.dir, file), 'utf8'));
    if (m) found.push({ name: m[1], file: file.replace(/\.ts$/, '.js') });
  }
  return [
    ...kind.header.map((line) => `// ${line}`),
    `import type { ${kind.type} } from '${kind.typeFrom}';`,
    ...found.map((o) => `import { ${o.name} } from './${o.file}';`),
    '',
    `/** ${kind.what} */`,
    listLine(
      `export const ${kind.exported}: readonly ${kind.type}[] = `,
      found.map((o) => o.name),
    ),
    '',
  ].join('\n');
}

/** The list's declaration as the formatter lays it out: one line, or one name a line past 120 columns. */
function listLine(head, names) {
  const one = `${head}[${names.join(', ')}];`;
  return one.length <= 120 ? one : `${head}[\n${names.map((n) => `  ${n},`).join('\n')}\n];`;
}

/** Writes `text` to `file` when it differs; true when it did. */
export function writeRegistry(file, text) {
  let old = '';
  try {
    old = readFileSync(file, 'utf8');
  } catch {
    // None yet.
  }
  if (old === text) return false;
  writeFileSync(file, text);
  return true;
}
