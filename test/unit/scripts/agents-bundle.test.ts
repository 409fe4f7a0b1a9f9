// `mado agents` (and `mado jobs`) runs from a bundle of its own, bin/mado's fast path: it must stay
// small. One import of an agent's module (a helper that sits beside the agents) pulls in every
// agent's rules and records and multiplies it (29 KB became 144 KB once, by one import in fleet/entry.ts).
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/files.js';

describe("mado agents' own bundle", () => {
  it('holds no agent module and stays under 26 KB, minified as the build makes it', async () => {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: [path.join(ROOT, 'src/bin/mado-agents.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      minify: true,
      external: ['node-pty'],
      define: { MADOHUB_VERSION: '"test"', 'import.meta.url': '__madohubImportMetaUrl' },
      write: false,
      metafile: true,
      outfile: 'mado-agents.js',
      logLevel: 'silent',
    });
    const output = Object.values(result.metafile.outputs)[0]!;
    const inputs = Object.keys(output.inputs);
    expect(inputs.filter((f) => f.startsWith('src/agents/'))).toEqual([]);
    expect(output.bytes).toBeLessThan(26 * 1024);
  });
});
