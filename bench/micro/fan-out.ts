/**
 * CPU of handing one change-stream event to many open streams, the two ways: each response's own
 * write (`res.write(bytes)`: a chunk's size line, the bytes and CRLF as four writes, the socket corked
 * and uncorked on the next tick) against one chunk framed once and handed to each socket
 * (`socket.write(chunk)`, what EventStream does for an unfiltered stream). FAN_OUT_STREAMS (default
 * 2000) streams on loopback, read by a child process; FAN_OUT_ROUNDS (default 6) rounds of each,
 * alternated, FAN_OUT_EVENTS (default 20) events a round; process CPU (user + system, the kernel's
 * sends included) per stream and event, medians.
 *
 *   npx tsx bench/micro/fan-out.ts
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { chunkOf } from '../../src/catalogue/change-feed.js';

const STREAMS = Number(process.env.FAN_OUT_STREAMS ?? 2000);
const ROUNDS = Number(process.env.FAN_OUT_ROUNDS ?? 6);
const EVENTS = Number(process.env.FAN_OUT_EVENTS ?? 20);

if (process.argv[2] === 'reader') {
  // The child: opens the streams and reads them, dropping what comes.
  const port = Number(process.argv[3]);
  let open = 0;
  for (let i = 0; i < STREAMS; i++) {
    const localAddress = `127.${1 + (i >> 16)}.${(i >> 8) & 255}.${i & 255 || 1}`;
    http.get({ host: '127.0.0.1', port, path: '/', agent: false, localAddress }, (res) => {
      res.on('data', () => {});
      if (++open === STREAMS) process.send?.('open');
    });
  }
} else {
  const responses: http.ServerResponse[] = [];
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', connection: 'close' });
    res.write('retry: 2000\n\n');
    responses.push(res);
  });
  server.maxConnections = STREAMS + 10;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const reader = fork(new URL(import.meta.url).pathname, ['reader', String(port)], { execArgv: ['--import', 'tsx'] });
  await new Promise((r) => reader.once('message', r));
  const event = (n: number) =>
    Buffer.from(
      `event: session\ndata: {"id":"00000000-0000-4000-8000-${String(n).padStart(12, '0')}","status":"available","spotsAvailable":7,"priceEuros":239,"version":${n}}\nid: ${n}\n\n`,
    );
  const pause = () => new Promise((r) => setTimeout(r, 50));
  const ways = {
    'res.write': (bytes: Buffer) => {
      for (const res of responses) res.write(bytes);
    },
    'framed chunk': (bytes: Buffer) => {
      const chunk = chunkOf(bytes);
      for (const res of responses) res.socket?.write(chunk);
    },
  };
  const results: Record<string, number[]> = { 'res.write': [], 'framed chunk': [] };
  let n = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, send] of Object.entries(ways)) {
      let used = 0;
      for (let e = 0; e < EVENTS; e++) {
        await pause();
        const c0 = process.cpuUsage();
        send(event(n++));
        // The corked writes go out on the next tick: count them.
        await new Promise((r) => setImmediate(r));
        const c = process.cpuUsage(c0);
        used += c.user + c.system;
      }
      if (round > 0) results[name]?.push(used / EVENTS / STREAMS);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  for (const [name, xs] of Object.entries(results))
    console.log(
      `${name.padEnd(13)} ${median(xs).toFixed(1)} µs of CPU per stream and event (rounds ${xs.map((x) => x.toFixed(1)).join(', ')}; ${STREAMS} streams)`,
    );
  reader.kill();
  for (const res of responses) res.destroy();
  server.close();
}
