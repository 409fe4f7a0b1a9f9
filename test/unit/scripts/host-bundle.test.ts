// A job's host lives as long as its job, so what it keeps is paid once per job (issue 31): it runs
// from a bundle of its own (src/bin/mado-host.ts, bin/mado's choice for __host and __spare) holding
// none of the Neovim side, the command line, the operations or the fleet; and every bundle is written
// in ASCII alone, since V8 keeps a source with one character past it at two bytes a character.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { asciiOnly } from '../../../scripts/ascii.mjs';
import { ROOT } from '../../helpers/files.js';

describe("a job's host's own bundle", () => {
  it('holds nothing of the Neovim side, the command line, the operations, the daemon or the fleet', async () => {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: [path.join(ROOT, 'src/bin/mado-host.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      external: ['node-pty'],
      define: { MADOHUB_VERSION: '"test"', 'import.meta.url': '__madohubImportMetaUrl' },
      write: false,
      metafile: true,
      outfile: 'mado-host.js',
      logLevel: 'silent',
    });
    const inputs = Object.keys(Object.values(result.metafile.outputs)[0]!.inputs);
    expect(inputs.filter((f) => /^src\/(?:nvim|cli|ops|daemon|fleet)\//.test(f))).toEqual([]);
    expect(inputs).toContain('src/jobs/host/index.ts');
  });

  it('is built without blanks or comments (V8 keeps its whole source in each host), its names kept for stack traces', () => {
    const host = readFileSync(path.join(ROOT, 'dist/mado-host.js'), 'utf8');
    expect(host).not.toMatch(/^\s*\/\/ /m);
    // One statement after another (a line is left where a template's text has one), not one a line.
    expect(host.split('\n').length).toBeLessThan(1000);
    // The host's own functions keep their names.
    expect(host).toMatch(/function freePort\(/);
    expect(host).toMatch(/function outgoingPorts\(/);
  });

  it('is the entry bin/mado loads for a host and a spare, mado-agents.js for jobs, mado.js for the rest', () => {
    const bin = readFileSync(path.join(ROOT, 'bin/mado'), 'utf8');
    expect(bin).toMatch(/verb === '__host' \|\| verb === '__spare'\s*\?\s*'mado-host\.js'/);
  });
});

describe('a bundle in ASCII alone', () => {
  it('means what it meant: strings, templates, regular expressions (u too), astral characters', () => {
    const source = [
      "const arrow = '→ · ❯';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template, as a bundle holds it
      'const tpl = `${arrow} ✓`;',
      'const border = /^[╭╰─━]{2,}$/;',
      'const emoji = /^\\p{Emoji}😀$/u;',
      "const face = '😀';",
      'module.exports = { arrow, tpl, b: border.test("╭──"), e: emoji.test("😀😀"), face, n: face.length };',
    ].join('\n');
    const written = asciiOnly(source);
    expect(written).toMatch(/^[\x00-\x7f]*$/);
    const run = (text: string): unknown => {
      const module = { exports: {} };
      new Function('module', text)(module);
      return module.exports;
    };
    expect(run(written)).toEqual(run(source));
    expect(run(written)).toMatchObject({ arrow: '→ · ❯', b: true, e: true, n: 2 });
  });

  it('refuses a character past ASCII escaped by a backslash (it would become a backslash)', () => {
    expect(() => asciiOnly('const r = /\\→/;')).toThrow('a backslash before a character past ASCII');
  });
});
