import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { handleOAuthErrors } from '../../src/auth/routes/error-handler.js';
import { DomainError } from '../../src/core/errors.js';
import { registerErrorHandling } from '../../src/http/errors.js';
import { mcpErrorHandler } from '../../src/mcp/plugin.js';
import { reservationErrorHandler } from '../../src/reservations/error-handler.js';

/** A refusal as domain code throws it, through each door's error handler. */
const refusal = () =>
  new DomainError(409, 'places_out_of_range', 'No place left.', [{ name: 'change', reason: 'too many' }]);

let app: FastifyInstance;
afterEach(() => app?.close());

async function answer(setUp: (app: FastifyInstance) => void) {
  app = Fastify({ logger: false });
  setUp(app);
  app.get('/refuse', async () => {
    throw refusal();
  });
  return app.inject('/refuse');
}

describe('a DomainError, answered in the format of its door', () => {
  it('REST and the admin API: problem+json with its status, code, message and fields', async () => {
    const res = await answer((a) => registerErrorHandling(a));
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({
      status: 409,
      code: 'places_out_of_range',
      detail: 'No place left.',
      errors: [{ name: 'change', reason: 'too many' }],
    });
  });

  it('OAuth: an RFC 6749 error with its status, never a 500', async () => {
    const res = await answer(handleOAuthErrors);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('MCP: a JSON-RPC error with its status and message, never an internal error', async () => {
    const res = await answer((a) => a.setErrorHandler(mcpErrorHandler));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'No place left.' }, id: null });
  });

  it('the reservation form: a French page with its status, saying nothing was stored', async () => {
    const res = await answer((a) =>
      a.setErrorHandler(reservationErrorHandler({ name: 'Stages', baseUrl: 'https://stages.example.test' })),
    );
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('Rien n’a été enregistré');
  });
});
