// What a route sends. Pure: the template filled, the provenance line first, and what goes in a file
// when the text is larger than the target should get.

/** What a template may name. */
export interface PayloadVars {
  last: string;
  diff: string;
  screen: string;
  name: string;
  agent: string;
  cwd: string;
  state: string;
  hop: number;
}

export const BUILTIN_TEMPLATES: Readonly<Record<string, string>> = {
  review:
    'Review the following change made by {name} ({agent}) in {cwd}. Point out bugs, risks and missing tests; be specific, cite the lines.\n\n{diff}\n\n{last}',
  continue: 'Continue the work of {name} ({agent}) in {cwd}. Where it stopped:\n\n{last}',
};

/** The text for `send` when no template is named: the part it names. */
const PLAIN: Record<'last' | 'diff' | 'screen', string> = { last: '{last}', diff: '{diff}', screen: '{screen}' };

const KEYS = new Set(['last', 'diff', 'screen', 'name', 'agent', 'cwd', 'state', 'hop']);

/**
 * Fills `{key}` places; an unknown key stays as written (`{{` writes `{`). One pass: a value is never read
 * as a place.
 */
export function fill(template: string, vars: PayloadVars): string {
  return template.replace(/\{\{|\{([a-z]+)\}/g, (all, key: string | undefined) => {
    if (all === '{{') return '{';
    return key && KEYS.has(key) ? String(vars[key as keyof PayloadVars]) : all;
  });
}

/** The template a route uses: one of the user's, a built-in one, or the plain part for `send`. */
export function templateText(
  name: string,
  send: 'last' | 'diff' | 'screen',
  user: Readonly<Record<string, string>>,
): string | undefined {
  if (name === '') return PLAIN[send];
  if (Object.hasOwn(user, name)) return user[name];
  if (Object.hasOwn(BUILTIN_TEMPLATES, name)) return BUILTIN_TEMPLATES[name];
  return undefined;
}

/**
 * The first line of every payload: where it comes from, so that neither agent nor user reads it as the
 * user's words.
 */
export function provenance(source: string, target: string, hop: number, hops: number): string {
  return `[mado route ${source} → ${target} · hop ${hop}/${hops}]`;
}

/** The text a target gets when the payload is too large: where the whole is, and its first lines. */
export function spilled(head: string, file: string, body: string, lines = 20): string {
  const first = body.split('\n').slice(0, lines).join('\n');
  return `${head}\nThe whole text (${Buffer.byteLength(body)} bytes) is in ${file}; its first lines:\n\n${first}`;
}
