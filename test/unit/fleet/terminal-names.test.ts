import { describe, expect, it } from 'vitest';
import { freeName } from '../../../src/fleet/terminal-names.js';

describe('a terminal’s name among the others', () => {
  it('is its agent and folder while free, else the first free number from 2; a name it had is kept while free', () => {
    expect(freeName('claude main', undefined, new Set())).toBe('claude main');
    expect(freeName('claude main', undefined, new Set(['claude main']))).toBe('claude main 2');
    expect(freeName('claude main', undefined, new Set(['claude main', 'claude main 2']))).toBe('claude main 3');
    // `claude main 2` stays so when `claude main` is free again (names do not shift as terminals close).
    expect(freeName('claude main', 'claude main 2', new Set())).toBe('claude main 2');
    // A name of another agent's or folder's is not kept: its new base is.
    expect(freeName('codex main', 'claude main 2', new Set())).toBe('codex main');
    expect(freeName('claude main', 'claude main x', new Set())).toBe('claude main');
    // Taken meanwhile by another terminal: the first free one.
    expect(freeName('claude main', 'claude main 2', new Set(['claude main 2']))).toBe('claude main');
  });
});
