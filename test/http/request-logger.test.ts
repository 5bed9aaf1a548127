import Fastify, { LogController } from 'fastify';
import { describe, expect, it } from 'vitest';
import { requestLoggerFactory } from '../../src/http/request-logger.js';

/**
 * The same route answered by Fastify with its own child loggers and with ours (made when the request
 * first logs): every line it writes, parsed, apart from its time.
 */
async function linesOf(childLoggerFactory?: typeof requestLoggerFactory): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  let n = 0;
  const app = Fastify({
    logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } },
    genReqId: () => `req-${++n}`,
    logController: new LogController({ disableRequestLogging: true }),
    ...(childLoggerFactory ? { childLoggerFactory } : {}),
  });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/talks', async (request) => {
    request.log.info({ step: 1 }, 'first');
    request.log.debug('below the level: not written');
    request.log.child({ part: 'inner' }).warn({ step: 2 }, 'second');
    request.log.error(new Error('third'));
    return { level: request.log.level };
  });
  app.get('/fails', async () => {
    throw new Error('boom');
  });
  app.setErrorHandler((err, request, reply) => {
    request.log.error({ err }, 'failed');
    reply.code(500).send({ failed: true });
  });
  await app.ready();
  const answers = [];
  for (const url of ['/quiet', '/talks', '/fails', '/talks']) {
    const res = await app.inject(url);
    answers.push({ url, status: res.statusCode, body: res.body });
  }
  await app.close();
  lines.push({ answers });
  return lines.map(({ time: _time, ...line }) => line);
}

describe('request loggers made on first use', () => {
  it('write the very lines Fastify’s own child loggers write, request ids, bindings and errors included', async () => {
    const theirs = await linesOf();
    const ours = await linesOf(requestLoggerFactory);
    expect(ours).toEqual(theirs);
    // The route logged: the comparison is not of two empty lists.
    expect(ours.filter((line) => line.reqId === 'req-2').map((line) => line.msg)).toEqual(['first', 'second', 'third']);
    expect(ours.some((line) => line.reqId === 'req-3' && line.msg === 'failed')).toBe(true);
    expect((ours.at(-1) as { answers: { status: number }[] }).answers.map((a) => a.status)).toEqual([
      200, 200, 500, 200,
    ]);
  });
});
