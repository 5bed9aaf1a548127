import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

/*
 * Slow and silent clients over real sockets, against short configured limits (300 ms, 600 ms idle): what
 * arrives too slowly is cut with a 408, connections past the cap are closed, and the change
 * stream, quiet between heartbeats, is not cut by any of it. Nothing here sleeps: each test waits
 * for the server to act.
 */

/** A raw connection that records what it receives and when it closes. */
interface Raw {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
  /** Resolves once the received text matches. */
  waitFor(pattern: RegExp): Promise<string>;
}

let port = 0;
function open(payload?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const waiters: { pattern: RegExp; done: (text: string) => void }[] = [];
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      for (const w of waiters.splice(0)) {
        if (w.pattern.test(text)) w.done(text);
        else waiters.push(w);
      }
    });
    socket.on('error', () => {}); // a reset connection shows as closed
    socket.once('connect', () => {
      if (payload !== undefined) socket.write(payload);
      resolve({
        socket,
        received: () => text,
        closed,
        waitFor: (pattern) =>
          pattern.test(text) ? Promise.resolve(text) : new Promise((done) => waiters.push({ pattern, done })),
      });
    });
    socket.once('error', reject);
  });
}

const SLOW_MCP =
  'POST /api/mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    env: {
      REQUEST_TIMEOUT_MS: '300',
      HEADERS_TIMEOUT_MS: '300',
      // Longer than the request timeout, as by default: a request still arriving gets its 408.
      IDLE_TIMEOUT_MS: '600',
      KEEP_ALIVE_TIMEOUT_MS: '300',
      MAX_CONNECTIONS: '8',
      EVENTS_HEARTBEAT_SECONDS: '1',
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => t.close());

describe('timeouts and caps at the edge', () => {
  it('cuts a request whose body has not arrived within REQUEST_TIMEOUT_MS with a 408', async () => {
    const slow = await open(SLOW_MCP);
    // A byte now and then does not keep it alive: the timeout is on the whole request.
    slow.socket.write('o');
    await slow.closed;
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(slow.received()).toContain('application/problem+json');
    expect(slow.received()).toContain('"status":408');
  });

  it('cuts a request whose headers have not arrived, and a connection that sends nothing', async () => {
    const slowHeaders = await open('GET /api/health HTTP/1.1\r\nHost: x\r\n');
    const silent = await open();
    await Promise.all([slowHeaders.closed, silent.closed]);
    expect(slowHeaders.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('lets one address add slow requests only as fast as the timeout cuts them', async () => {
    const slow = await Promise.all(Array.from({ length: 5 }, () => open(SLOW_MCP)));
    await Promise.all(slow.map((s) => s.closed));
    for (const s of slow) expect(s.received()).toMatch(/^HTTP\/1\.1 408 /);
    // The server holds none of them any more, and answers as before.
    const ok = await open('GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await ok.closed;
    expect(ok.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('closes connections past MAX_CONNECTIONS at once, and takes new ones when some have gone', async () => {
    const held = await Promise.all(Array.from({ length: 8 }, () => open()));
    const beyond = await open('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n');
    await beyond.closed;
    expect(beyond.received()).toBe('');
    for (const s of held) s.socket.destroy();
    await Promise.all(held.map((s) => s.closed));
    const later = await open('GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await later.closed;
    expect(later.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('keeps a change stream open past every timeout, while a slow body beside it is cut', async () => {
    const stream = await open('GET /api/stages/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
    await stream.waitFor(/\r\n\r\n[\s\S]*retry: /);
    let streamClosed = false;
    void stream.closed.then(() => {
      streamClosed = true;
    });
    // Opened after the stream, one after the other: once both are cut, the stream has been quiet
    // longer than the request, headers, keep-alive and idle timeouts together.
    const keptAlive = await open('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n');
    for (let i = 0; i < 2; i++) {
      const slow = await open(SLOW_MCP);
      await slow.closed;
      expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    }
    await keptAlive.closed;
    expect(keptAlive.received()).toMatch(/^HTTP\/1\.1 200 /);
    // …and it still carries what the server sends: the next heartbeat (or, were it cut, nothing).
    const seen = stream.received().length;
    await Promise.race([stream.waitFor(new RegExp(`^[\\s\\S]{${seen}}[\\s\\S]*: heartbeat`)), stream.closed]);
    expect(streamClosed).toBe(false);
    expect(stream.received().slice(seen)).toContain(': heartbeat');
    stream.socket.destroy();
  });
});

describe('edge settings', () => {
  it('default to 30 s for a request, 10 s for its headers, 4096 connections', () => {
    expect(loadConfig({}).edge).toEqual({
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 72_000,
      idleTimeoutMs: 120_000,
      maxConnections: 4096,
    });
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '5000' }).edge.headersTimeoutMs).toBe(5000);
  });

  it('refuse a headers timeout longer than the request timeout, and timeouts above an hour', () => {
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '2000' })).toThrow(/HEADERS_TIMEOUT_MS/);
    expect(() => loadConfig({ IDLE_TIMEOUT_MS: '3600001' })).toThrow(/IDLE_TIMEOUT_MS must be at most/);
    expect(() => loadConfig({ MAX_CONNECTIONS: '0' })).toThrow(/MAX_CONNECTIONS/);
  });
});
