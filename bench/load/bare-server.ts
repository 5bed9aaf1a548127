import { createServer } from 'node:http';

/**
 * The yardstick: a bare node:http server answering each benchmarked request with a prebuilt
 * body of the same bytes the service sent. Bodies arrive as JSON on stdin: { "<METHOD> <url>": body },
 * or { "<METHOD> <url>\n<request body>": body } for POSTs.
 */
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const bodies = new Map(
  Object.entries(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>).map(([k, v]) => [
    k,
    Buffer.from(v),
  ]),
);

const server = createServer((req, res) => {
  // Read the request body, as a real handler must: a POST is answered by method, path and body.
  const parts: Buffer[] = [];
  req.on('data', (chunk: Buffer) => parts.push(chunk));
  req.on('end', () => {
    const key = `${req.method} ${req.url}`;
    // A scenario that defeats answer caches adds `_=<n>`: the yardstick answers it the same.
    const body =
      (parts.length > 0 ? bodies.get(`${key}\n${Buffer.concat(parts).toString('utf8')}`) : undefined) ??
      bodies.get(key) ??
      bodies.get(`${req.method} ${req.url?.replace(/[?&]_=\d+$/, '')}`);
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
