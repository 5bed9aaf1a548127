import type { FastifyInstance } from 'fastify';
import { exportSPKI, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, frozenClock } from '../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type Registered, register, tokenFor } from '../helpers/oauth.js';
import { buildProbeApp, PROBE_PATH } from '../helpers/probe-app.js';
import { activeKey, claimsAt, handmade, sign } from '../helpers/signer.js';

const NOW = '2030-03-04T09:00:00Z';
const clock = frozenClock(NOW);
let db: TestDatabase;
let app: FastifyInstance;
let client: Registered;
let valid: string;
let key: Awaited<ReturnType<typeof activeKey>>;

beforeAll(async () => {
  db = await openTestDatabase();
  app = await buildProbeApp(db.database, clock);
  client = await register(app);
  valid = await tokenFor(app, client);
  key = await activeKey(db.database.db);
});
afterAll(async () => {
  await app.close();
  await db.dispose();
});

const probe = (authorization?: string) =>
  app.inject({
    method: 'POST',
    url: PROBE_PATH,
    headers: authorization === undefined ? {} : { authorization },
  });

const PRM = `${BASE_URL}/.well-known/oauth-protected-resource/api/mcp`;

async function expectRefused(authorization: string, description?: RegExp) {
  const res = await probe(authorization);
  expect(res.statusCode, res.body).toBe(401);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const challenge = res.headers['www-authenticate'] as string;
  expect(challenge).toMatch(
    /^Bearer error="invalid_token", error_description="[\x20\x21\x23-\x5B\x5D-\x7E]+", resource_metadata="([^"]+)"$/,
  );
  expect(challenge).toContain(`resource_metadata="${PRM}"`);
  const body = res.json();
  expect(body).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: expect.any(String) }, id: null });
  expect(challenge).toContain(`error_description="${body.error.message}"`);
  if (description) expect(body.error.message).toMatch(description);
  return body.error.message as string;
}

describe('bearer authentication', () => {
  it('lets a request without Authorization through as anonymous', async () => {
    const res = await probe();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ identity: { kind: 'anonymous' } });
  });

  it('identifies the client of a valid token', async () => {
    const res = await probe(`Bearer ${valid}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      identity: { kind: 'client', clientId: client.client_id, scope: 'read', scopes: ['read'] },
    });
    // The scheme is case-insensitive (RFC 9110 §11.1).
    expect((await probe(`bearer ${valid}`)).statusCode).toBe(200);
  });

  it('accepts a token for the service-wide resource identifier too', async () => {
    const root = await tokenFor(app, client, { resource: BASE_URL });
    expect((await probe(`Bearer ${root}`)).json().identity.kind).toBe('client');
  });

  // Functions: the valid token only exists once beforeAll has run.
  it.each<[string, () => string]>([
    ['an empty header', () => ''],
    ['a bare scheme', () => 'Bearer'],
    ['a garbage string', () => 'Bearer not-a-token'],
    ['three empty parts', () => 'Bearer ..'],
    ['a non-JSON header', () => 'Bearer a.b.c'],
    ['characters outside b64token', () => 'Bearer abc"def'],
    ['two tokens', () => `Bearer ${valid} ${valid}`],
    ['a huge token', () => `Bearer ${'a'.repeat(10_000)}`],
    ['the Basic scheme', () => `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['a token without a scheme', () => valid],
    ['the DPoP scheme', () => `DPoP ${valid}`],
  ])('refuses %s', async (_label, header) => {
    await expectRefused(header());
  });

  it('refuses alg none', async () => {
    const token = handmade({ alg: 'none', typ: 'at+jwt', kid: key.kid }, claimsAt(clock.now()));
    await expectRefused(`Bearer ${token}`, /ES256/);
  });

  it('refuses HS256 signed with the public key', async () => {
    const jwks = (await app.inject('/.well-known/jwks.json')).json();
    const publicKey = (await importJWK(jwks.keys[0] as JWK, 'ES256')) as CryptoKey;
    const pem = await exportSPKI(publicKey);
    for (const secret of [pem, JSON.stringify(jwks.keys[0])]) {
      const token = await sign(new TextEncoder().encode(secret), claimsAt(clock.now()), { alg: 'HS256', kid: key.kid });
      await expectRefused(`Bearer ${token}`, /ES256/);
    }
  });

  it('refuses a token whose kid is unknown', async () => {
    const stranger = await generateKeyPair('ES256');
    const token = await sign(stranger.privateKey, claimsAt(clock.now()), { kid: 'no-such-key' });
    await expectRefused(`Bearer ${token}`, /unknown or retired key/);
  });

  it('refuses a token without a kid', async () => {
    await expectRefused(`Bearer ${await sign(key.privateKey, claimsAt(clock.now()))}`, /kid/);
  });

  it('refuses a token signed by another key under our kid', async () => {
    const stranger = await generateKeyPair('ES256');
    const token = await sign(stranger.privateKey, claimsAt(clock.now()), { kid: key.kid });
    await expectRefused(`Bearer ${token}`, /signature/);
  });

  it('refuses a tampered payload', async () => {
    const [h, p, s] = valid.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = Buffer.from(
      JSON.stringify({ ...claims, client_id: 'cl_someoneelse', sub: 'cl_someoneelse' }),
    ).toString('base64url');
    await expectRefused(`Bearer ${h}.${forged}.${s}`, /signature/);
    // A flipped signature byte, too.
    const sig = Buffer.from(s, 'base64url');
    sig[10] = (sig[10] ?? 0) ^ 1;
    await expectRefused(`Bearer ${h}.${p}.${sig.toString('base64url')}`, /signature/);
  });

  it.each([
    ['another audience', { aud: 'https://other.example/api/mcp' }, /not intended for this resource/],
    ['another issuer', { iss: 'https://evil.example' }, /not issued by this authorization server/],
    ['an issuer with a trailing slash', { iss: `${BASE_URL}/` }, /not issued by this authorization server/],
    ['another scope', { scope: 'admin' }, /read scope/],
    ['sub differing from client_id', { sub: 'cl_other' }, /client_id/],
    ['no jti', { jti: undefined }, /jti/],
    ['no client_id', { client_id: undefined }, /client_id/],
    ['no exp', { exp: undefined }, /exp/],
    ['nbf in the future', { nbf: Math.floor(Date.parse(NOW) / 1000) + 600 }, /not valid yet/],
    // An agent scope comes only with a person's claim, and a claim only with a person's sub.
    ['alerts without a claim', { scope: 'read alerts' }, /scope this server does not issue/],
    ['a claim that is not a claim id', { claim: 'x', sub: 'psn_x' }, /invalid claim member/],
    ['a claim with the client as sub', { claim: 'AAAAAAAAAAAAAAAAAAAAAA' }, /sub/],
  ])('refuses a correctly signed token with %s', async (_label, change, description) => {
    const token = await sign(key.privateKey, { ...claimsAt(clock.now()), ...change }, { kid: key.kid });
    await expectRefused(`Bearer ${token}`, description);
  });

  it('refuses a correctly signed token naming a claim that is not in force for its client', async () => {
    const payload = { ...claimsAt(clock.now(), client.client_id), claim: 'AAAAAAAAAAAAAAAAAAAAAA', sub: 'psn_x' };
    const token = await sign(key.privateKey, { ...payload, scope: 'read alerts' }, { kid: key.kid });
    await expectRefused(`Bearer ${token}`, /claim is revoked/);
  });

  it.each([['JWT'], ['jwt'], ['application/jwt']])('refuses typ %s', async (typ) => {
    const token = await sign(key.privateKey, claimsAt(clock.now()), { kid: key.kid, typ });
    await expectRefused(`Bearer ${token}`, /at\+jwt/);
  });

  it('accepts typ application/at+jwt (RFC 9068 §4)', async () => {
    const token = await sign(key.privateKey, claimsAt(clock.now(), client.client_id), {
      kid: key.kid,
      typ: 'application/at+jwt',
    });
    expect((await probe(`Bearer ${token}`)).statusCode).toBe(200);
  });

  it('refuses an expired token, with a small clock tolerance', async () => {
    const issuedAt = '2030-03-04T12:00:00Z';
    clock.set(issuedAt);
    try {
      const token = await tokenFor(app, client);
      clock.set('2030-03-04T13:00:20Z'); // 20 s after exp: within the 30 s tolerance
      expect((await probe(`Bearer ${token}`)).statusCode).toBe(200);
      clock.set('2030-03-04T13:00:31Z');
      await expectRefused(`Bearer ${token}`, /expired/);
    } finally {
      clock.set(NOW);
    }
  });

  it('does not let a refused request through to the route', async () => {
    const res = await probe('Bearer garbage');
    expect(res.body).not.toContain('identity');
  });

  it('never lets jose messages or token text into the challenge', async () => {
    const token = await new SignJWT({ ...claimsAt(clock.now()), iss: 'https://evil.example/"\\' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid })
      .sign(key.privateKey);
    const message = await expectRefused(`Bearer ${token}`);
    expect(message).not.toContain('evil');
  });
});
