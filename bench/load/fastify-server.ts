import Fastify from 'fastify';
import { readRecordedBodies, recordedAnswer } from './recorded-bodies.js';

/**
 * The framework's share: a Fastify app with one catch-all route answering each benchmarked request
 * with the bytes the service sent (recorded-bodies.ts), as bare-server.ts does with node:http. No
 * hooks, plugins, schemas or logger: what Fastify itself costs per request. Prints its port.
 */
const bodies = await readRecordedBodies();
const app = Fastify({ logger: false });
// POST bodies are looked up as sent, not parsed.
app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
app.all('/*', async (request, reply) => {
  const body = recordedAnswer(
    bodies,
    request.method,
    request.url,
    typeof request.body === 'string' ? request.body : undefined,
  );
  if (!body) return reply.code(404).send();
  return reply.type('application/json; charset=utf-8').send(body);
});
await app.listen({ port: Number(process.env.FASTIFY_PORT ?? 0), host: '127.0.0.1' });
const address = app.server.address();
if (address && typeof address === 'object') process.stdout.write(`${address.port}\n`);
