/**
 * The answers the yardsticks replay (bare-server.ts, fastify-server.ts): the service's exact bytes
 * for each benchmarked request, read as JSON from stdin: { "<METHOD> <url>": body }, or
 * { "<METHOD> <url>\n<request body>": body } for POSTs.
 */
export async function readRecordedBodies(): Promise<Map<string, Buffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const table = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>;
  return new Map(Object.entries(table).map(([k, v]) => [k, Buffer.from(v)]));
}

/**
 * The recorded answer to a request, by method, URL and body. A scenario that defeats answer caches
 * adds `_=<n>`: the yardsticks answer it the same.
 */
export function recordedAnswer(
  bodies: Map<string, Buffer>,
  method: string,
  url: string,
  body: string | undefined,
): Buffer | undefined {
  const key = `${method} ${url}`;
  return (
    (body !== undefined ? bodies.get(`${key}\n${body}`) : undefined) ??
    bodies.get(key) ??
    bodies.get(`${method} ${url.replace(/[?&]_=\d+$/, '')}`)
  );
}
