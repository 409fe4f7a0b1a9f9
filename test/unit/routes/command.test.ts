// :MadoRoute's words, parsed once (on the Node side): subcommands, ends, options; the values are the
// engine's to check.
import { describe, expect, it } from 'vitest';
import { parseRouteCommand, routeOptionWords, routeWords } from '../../../src/routes/command.js';

describe(':MadoRoute words', () => {
  it('are a subcommand, or a target (and a source) with options', () => {
    expect(parseRouteCommand(['list'])).toEqual({ kind: 'list' });
    expect(parseRouteCommand(['rm', 'a1b2c3'])).toEqual({ kind: 'rm', id: 'a1b2c3' });
    expect(parseRouteCommand(['reviewer'])).toEqual({ kind: 'add', target: 'reviewer', options: {} });
    expect(parseRouteCommand(['writer', 'reviewer', 'on=turn', 'send=diff', 'template=review', 'hops=5', 'once', 'review'])).toEqual({
      kind: 'add',
      source: 'writer',
      target: 'reviewer',
      options: { on: 'turn', send: 'diff', template: 'review', hops: 5, once: true, review: true },
    });
    // `list` with more words is an end named list, not the subcommand.
    expect(parseRouteCommand(['list', 'x'])).toEqual({ kind: 'add', source: 'list', target: 'x', options: {} });
  });

  it('refuse what they cannot be, saying why', () => {
    expect(parseRouteCommand([])).toMatchObject({ kind: 'error', message: expect.stringMatching(/^usage: :MadoRoute/) });
    expect(parseRouteCommand(['x', 'colour=red'])).toEqual({ kind: 'error', message: 'unknown option colour= (on=, send=, template=, hops=, once, review)' });
    expect(parseRouteCommand(['x', 'hops=many'])).toEqual({ kind: 'error', message: 'hops=many is no number' });
    expect(parseRouteCommand(['a', 'b', 'c'])).toEqual({ kind: 'error', message: 'name a target, or a source and a target' });
    expect(parseRouteCommand(['once'])).toEqual({ kind: 'error', message: 'name a target, or a source and a target' });
  });

  it('complete with the subcommands, every on= and send=, the templates, and say a route\'s options in words', () => {
    const words = routeWords(['mine']);
    expect(words).toEqual(expect.arrayContaining(['list', 'rm', 'on=done', 'on=turn', 'on=waiting', 'send=last', 'send=diff', 'send=screen', 'template=review', 'template=continue', 'template=mine', 'hops=', 'once', 'review', 'file:']));
    expect(routeOptionWords({ on: 'done', send: 'last', hops: 3, template: '', once: true, review: false, paused: true })).toBe('on=done send=last hops=3 once paused');
  });
});
