import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventStream, MAX_EVENT, SseParser } from '../../../src/records/event-stream.js';
import { holds, until } from '../../helpers/wait.js';

describe('the SSE parser', () => {
  it('makes an event of data lines up to a blank line, in any chunks; other fields and comments are passed over', () => {
    const got: string[] = [];
    const p = new SseParser((d) => got.push(d));
    for (const chunk of [
      'data: {"a"',
      ':1}\n\n: comment\nevent: x\nid: 3\r\ndata: one\r\ndata: two\r\n\r',
      '\ndata:',
      'x\n\n',
    ])
      p.push(chunk);
    expect(got).toEqual(['{"a":1}', 'one\ntwo', 'x']);
  });
  it('drops an event larger than MAX_EVENT, and reads the next', () => {
    const got: string[] = [];
    const p = new SseParser((d) => got.push(d));
    p.push(`data: ${'x'.repeat(MAX_EVENT + 10)}`);
    p.push('\n\ndata: ok\n\n');
    expect(got).toEqual(['ok']);
  });
});

describe('an event stream at the loopback address', () => {
  let server: Server | undefined;
  let stream: EventStream | undefined;
  afterEach(async () => {
    stream?.stop();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = stream = undefined;
  });
  const serve = (handler: (res: ServerResponse) => void): Promise<number> =>
    new Promise((resolve) => {
      server = createServer((_req, res) => handler(res));
      server.listen(0, '127.0.0.1', () => resolve((server!.address() as AddressInfo).port));
    });
  const follow = (port: number, events: unknown[], log: string[] = []): EventStream => {
    stream = new EventStream({
      port,
      path: '/event',
      greeting: (e) => (e as { type?: string }).type === 'hello',
      onEvent: (e) => events.push(e),
      log: (l) => log.push(l),
    });
    stream.start();
    return stream;
  };

  it('passes on the events after the greeting; opened again when the server ends it', async () => {
    let opened = 0;
    const port = await serve((res) => {
      opened++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: {"type":"hello"}\n\ndata: {"n":${opened}}\n\ndata: not json\n\n`);
      if (opened === 1) setTimeout(() => res.end(), 50);
    });
    const events: unknown[] = [];
    follow(port, events);
    expect(await until(() => events.length >= 2)).toBe(true);
    expect(events).toEqual([{ n: 1 }, { n: 2 }]);
  });
  it('refuses a server that is no event stream, or does not greet as the agent', async () => {
    const log: string[] = [];
    const events: unknown[] = [];
    const port = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"type":"impostor"}\n\ndata: {"type":"permission.asked"}\n\n');
    });
    follow(port, events, log);
    expect(await until(() => log.length > 0)).toBe(true);
    expect(log[0]).toBe(`event stream 127.0.0.1:${port}: 127.0.0.1:${port} is no event stream of the agent's`);
    expect(events).toEqual([]);
  });
  it('a server that answers HTML, or never greets, is refused within the greeting time', async () => {
    const log: string[] = [];
    const port = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html>');
    });
    follow(port, [], log);
    expect(await until(() => log.length > 0)).toBe(true);
    expect(log[0]).toMatch(/answered 200 text\/html; charset=utf-8$/);
    stream!.stop();
    const silent = await serve((res) => res.writeHead(200, { 'content-type': 'text/event-stream' }));
    const log2: string[] = [];
    follow(silent, [], log2);
    expect(await until(() => log2.length > 0, 4000)).toBe(true);
    expect(log2[0]).toMatch(/no greeting from 127\.0\.0\.1:\d+ in 2000 ms/);
  });
  it('nothing listening: tried again, said for the first failures only, and stopped for good', async () => {
    const port = await serve(() => undefined);
    await new Promise((r) => server!.close(r));
    server = undefined;
    const log: string[] = [];
    follow(port, [], log);
    expect(await holds(() => log.length <= 3, 2500)).toBe(true);
    expect(log.length).toBe(3);
    expect(log[0]).toMatch(/ECONNREFUSED/);
    stream!.stop();
  });
});
