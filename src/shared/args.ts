// Strict arguments for the job verbs: an unknown flag or an extra argument is a usage error.
import { UsageError } from './errors.js';
import { safeText } from './text.js';

export interface FlagSpec {
  /** Every spelling of the flag (`-n`, `--lines`). */
  names: string[];
  /** True when it takes a value (`-n 20`, `--lines=20`). */
  value?: boolean;
}

export interface Parsed {
  /** Values by the flag's first name: the value, or '' for a switch. */
  flags: Map<string, string>;
  positional: string[];
}

/**
 * Parses `argv` against `flags`; `positional` names the arguments allowed (all required but those
 * ending in `?`; a last one ending in `...` takes the rest).
 */
export function parseArgs(argv: readonly string[], flags: FlagSpec[], positional: string[]): Parsed {
  const out: Parsed = { flags: new Map(), positional: [] };
  let rest = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!rest && a === '--') {
      rest = true;
      continue;
    }
    if (!rest && a.startsWith('-') && a !== '-') {
      const eq = a.startsWith('--') ? a.indexOf('=') : -1;
      const name = eq > 0 ? a.slice(0, eq) : a;
      const spec = flags.find((f) => f.names.includes(name));
      if (!spec) throw new UsageError(`unknown option ${a} (see mado --help)`);
      if (spec.value) {
        const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
        if (v === undefined) throw new UsageError(`${name} needs a value`);
        out.flags.set(spec.names[0]!, v);
      } else {
        if (eq > 0) throw new UsageError(`${name} takes no value`);
        out.flags.set(spec.names[0]!, '');
      }
      continue;
    }
    out.positional.push(a);
  }
  const required = positional.filter((p) => !p.endsWith('?') && !p.endsWith('...')).length;
  if (out.positional.length < required)
    throw new UsageError(`${positional[out.positional.length]!.replace(/\?$/, '')} is needed`);
  const variadic = positional.at(-1)?.endsWith('...') === true;
  if (!variadic && out.positional.length > positional.length) {
    throw new UsageError(`unexpected argument '${safeText(out.positional[positional.length]!)}' (see mado --help)`);
  }
  return out;
}

export { safeText };
