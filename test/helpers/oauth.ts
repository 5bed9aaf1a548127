import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

export interface Registered {
  client_id: string;
  client_secret: string;
}

export async function register(
  app: FastifyInstance,
  body: unknown = { client_name: 'test agent' },
): Promise<Registered> {
  const res = await app.inject({ method: 'POST', url: '/api/oauth/register', payload: body as object });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** HTTP Basic as RFC 6749 §2.3.1 wants it: each part form-urlencoded, then base64. */
export function basic(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

export function form(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

export async function tokenFor(app: FastifyInstance, client: Registered, extra: Record<string, string> = {}) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic(client.client_id, client.client_secret),
    },
    payload: form({ grant_type: 'client_credentials', ...extra }),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().access_token as string;
}
