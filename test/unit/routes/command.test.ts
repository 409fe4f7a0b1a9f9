// :MadoRoute's words, parsed once (on the Node side): subcommands, ends, options; the values are the
// engine's to check.
import { describe, expect, it } from 'vitest';
import { completionAt, parseRouteCommand, routeCompletion, routeOptionWords } from '../../../src/routes/command.js';
import type { RouteEndChoice } from '../../../src/routes/command.js';

describe(':MadoRoute words', () => {
  it('are a subcommand, or a target (and a source) with options', () => {
    expect(parseRouteCommand(['list'])).toEqual({ kind: 'list' });
    expect(parseRouteCommand(['rm', 'a1b2c3'])).toEqual({ kind: 'rm', id: 'a1b2c3' });
    expect(parseRouteCommand(['reviewer'])).toEqual({ kind: 'add', target: 'reviewer', options: {} });
    expect(
      parseRouteCommand(['writer', 'reviewer', 'on=turn', 'send=diff', 'template=review', 'hops=5', 'once', 'review']),
    ).toEqual({
      kind: 'add',
      source: 'writer',
      target: 'reviewer',
      options: { on: 'turn', send: 'diff', template: 'review', hops: 5, once: true, review: true },
    });
    // `list` with more words is an end named list, not the subcommand.
    expect(parseRouteCommand(['list', 'x'])).toEqual({ kind: 'add', source: 'list', target: 'x', options: {} });
  });

  it('refuse what they cannot be, saying why', () => {
    expect(parseRouteCommand([])).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/^usage: :MadoRoute/),
    });
    expect(parseRouteCommand(['x', 'colour=red'])).toEqual({
      kind: 'error',
      message: 'unknown option colour= (on=, send=, template=, hops=, once, review)',
    });
    expect(parseRouteCommand(['x', 'hops=many'])).toEqual({ kind: 'error', message: 'hops=many is no number' });
    expect(parseRouteCommand(['a', 'b', 'c'])).toEqual({
      kind: 'error',
      message: 'name a target, or a source and a target',
    });
    expect(parseRouteCommand(['once'])).toEqual({ kind: 'error', message: 'name a target, or a source and a target' });
  });

  it("say a route's options in words", () => {
    expect(
      routeOptionWords({ on: 'done', send: 'last', hops: 3, template: '', once: true, review: false, paused: true }),
    ).toBe('on=done send=last hops=3 once paused');
  });
});

describe(':MadoRoute completion offers only what can work where the cursor is', () => {
  const ends: RouteEndChoice[] = [
    { id: 'term:3', name: 'writer', remote: false, ended: false },
    { id: 'job:1a2b3c4d', name: 'critic', remote: false, ended: false },
    { id: 'term:7', name: 'gone', remote: false, ended: true },
    { id: 'job:box:5e6f7a8b', name: 'far', remote: true, ended: false },
    { id: 'term:8', name: 'twin', remote: false, ended: false },
    { id: 'term:9', name: 'twin', remote: false, ended: false },
    { id: 'term:10', name: 'two words', remote: false, ended: false },
  ];
  const complete = (line: string, routes: string[] = []): string[] =>
    routeCompletion(completionAt(line), ends, ['mine'], routes);

  it('first: the subcommands, the live agents (a shared or spaced name by its id only), file: and the options', () => {
    const words = complete('MadoRoute ');
    expect(words).toEqual(
      expect.arrayContaining([
        'list',
        'clear',
        'pause',
        'resume',
        'rm',
        'term:3',
        'writer',
        'job:1a2b3c4d',
        'critic',
        'job:box:5e6f7a8b',
        'far',
        'term:8',
        'term:9',
        'term:10',
        'file:',
        'on=done',
        'on=turn',
        'on=waiting',
        'send=last',
        'send=diff',
        'send=screen',
        'template=review',
        'template=continue',
        'template=mine',
        'hops=',
        'once',
        'review',
      ]),
    );
    for (const never of ['term:7', 'gone', 'twin', 'two words', 'two']) expect(words).not.toContain(never);
    expect(complete('MadoRoute wr')).toEqual(['writer']);
  });

  it('after a source: targets and options, no subcommand; after two ends or a remote job: the options not given yet', () => {
    expect(complete('MadoRoute writer ')).not.toContain('list');
    expect(complete('MadoRoute writer c')).toEqual(['critic']);
    expect(complete('MadoRoute writer critic ')).toEqual([
      'on=done',
      'on=turn',
      'on=waiting',
      'send=last',
      'send=diff',
      'send=screen',
      'template=review',
      'template=continue',
      'template=mine',
      'hops=',
      'once',
      'review',
    ]);
    expect(complete('MadoRoute writer critic on=turn once s')).toEqual(['send=last', 'send=diff', 'send=screen']);
    expect(complete('MadoRoute writer critic on=turn once ')).not.toContain('once');
    expect(complete('MadoRoute far ')).not.toContain('critic');
  });

  it('after rm: the routes there are; after list, clear, pause, resume: nothing', () => {
    expect(complete('MadoRoute rm ', ['r1', 'r2'])).toEqual(['r1', 'r2']);
    expect(complete('MadoRoute rm r1 ', ['r1', 'r2'])).toEqual([]);
    expect(complete('MadoRoute list ')).toEqual([]);
    expect(complete('MadoR pa')).toEqual(['pause']);
  });
});
