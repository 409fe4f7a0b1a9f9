// Writes doc/tags for doc/*.txt, as Vim's :helptags does: a line `tag<Tab>file<Tab>/*tag*` for each
// `*tag*` (a star, no white space or star or bar inside, white space or a line's end around it),
// sorted by bytes. So that `:help madohub` works after any install, not only a plugin manager's.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The tags lines of the help files in `docDir`; throws on a tag defined twice. */
export function helpTags(docDir) {
  const seen = new Map();
  for (const file of readdirSync(docDir)
    .filter((f) => f.endsWith('.txt'))
    .sort()) {
    const text = readFileSync(path.join(docDir, file), 'utf8');
    for (const line of text.split('\n')) {
      for (const m of line.matchAll(/(?<=^|\s)\*([^\s*|]+)\*(?=\s|$)/g)) {
        const tag = m[1];
        if (seen.has(tag)) throw new Error(`helptags: ${tag} is defined in ${seen.get(tag).file} and ${file}`);
        const pattern = `/*${tag.replace(/\\/g, '\\\\').replace(/\//g, '\\/')}*`;
        seen.set(tag, { file, line: `${tag}\t${file}\t${pattern}` });
      }
    }
  }
  const byBytes = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  return [...seen.keys()].sort(byBytes).map((t) => seen.get(t).line);
}

export function writeHelpTags(docDir) {
  writeFileSync(path.join(docDir, 'tags'), `${helpTags(docDir).join('\n')}\n`);
}
