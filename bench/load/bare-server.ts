import { createServer } from 'node:http';
import { readRecordedBodies, recordedAnswer } from './recorded-bodies.js';

/**
 * The yardstick: a bare node:http server answering each benchmarked request with a prebuilt
 * body of the same bytes the service sent (recorded-bodies.ts). Prints its port.
 */
const bodies = await readRecordedBodies();

const server = createServer((req, res) => {
  // Read the request body, as a real handler must: a POST is answered by method, path and body.
  const parts: Buffer[] = [];
  req.on('data', (chunk: Buffer) => parts.push(chunk));
  req.on('end', () => {
    const sent = parts.length > 0 ? Buffer.concat(parts).toString('utf8') : undefined;
    const body = recordedAnswer(bodies, req.method ?? 'GET', req.url ?? '/', sent);
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
});
server.listen(Number(process.env.BARE_PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`${address.port}\n`);
});
