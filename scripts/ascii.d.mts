/** `text` with every character past ASCII written as its `\uXXXX` escape (see ascii.mjs). */
export function asciiOnly(text: string): string;
/** Writes `file` again in ASCII alone when it is not. */
export function writeAsciiOnly(file: string): void;
