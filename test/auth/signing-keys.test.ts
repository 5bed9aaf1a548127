import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  importJWK,
  type JWK,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ensureActiveSigningKey, listSigningKeys, rotateSigningKey } from '../../src/auth/signing-keys.js';
import { openDatabase } from '../../src/db/connect.js';
import { signingKeys } from '../../src/db/schema.js';
import { frozenClock, testConfig } from '../helpers/app.js';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../helpers/database.js';
import { type Registered, register, tokenFor } from '../helpers/oauth.js';
import { buildProbeApp, PROBE_PATH } from '../helpers/probe-app.js';
import { claimsAt, sign } from '../helpers/signer.js';

const NOW = '2030-03-04T09:00:00Z';

const jwksOf = async (app: FastifyInstance) => {
  const res = await app.inject('/.well-known/jwks.json');
  expect(res.statusCode).toBe(200);
  return res.json() as { keys: Array<Record<string, string>> };
};

const probe = (app: FastifyInstance, token: string) =>
  app.inject({ method: 'POST', url: PROBE_PATH, headers: { authorization: `Bearer ${token}` } });

describe('signing keys', () => {
  let db: TestDatabase;
  const clock = frozenClock(NOW);
  let app: FastifyInstance;
  let client: Registered;

  beforeAll(async () => {
    db = await openTestDatabase();
    app = await buildProbeApp(db.database, clock);
    client = await register(app);
  });
  afterAll(async () => {
    await app.close();
    await db.dispose();
  });

  it('creates one key on first start and publishes only its public part', async () => {
    const keys = await listSigningKeys(db.database.db);
    expect(keys).toHaveLength(1);
    const res = await app.inject('/.well-known/jwks.json');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const jwks = res.json();
    expect(jwks.keys).toEqual([
      {
        kty: 'EC',
        crv: 'P-256',
        x: expect.any(String),
        y: expect.any(String),
        kid: keys[0]!.kid,
        alg: 'ES256',
        use: 'sig',
      },
    ]);
    expect(res.body).not.toContain('"d"');
  });

  it('reuses the stored key when another instance starts on the same database', async () => {
    const second = await buildApp(testConfig(), { database: db.database, clock, logger: false });
    await second.ready();
    try {
      expect(await listSigningKeys(db.database.db)).toHaveLength(1);
      // A token from one instance verifies on the other.
      const token = await tokenFor(second, client);
      expect((await probe(app, token)).json().identity.clientId).toBe(client.client_id);
    } finally {
      await second.close();
    }
  });

  it('rotates without breaking issued tokens, and retires the old key once its tokens expired', async () => {
    const before = await tokenFor(app, client);
    const oldKid = decodeProtectedHeader(before).kid!;
    const [oldRow] = await db.database.db.select().from(signingKeys).where(eq(signingKeys.kid, oldKid));
    const oldPrivate = (await importJWK(oldRow!.privateJwk as JWK, 'ES256')) as CryptoKey;

    // As the CLI does, from outside this instance.
    const rotation = await rotateSigningKey(db.database.db, clock.now());
    expect(rotation.retiring.map((k) => k.kid)).toEqual([oldKid]);
    const retiresAt = rotation.retiring[0]!.retiresAt!;
    expect(retiresAt.getTime() - clock.now().getTime()).toBeGreaterThanOrEqual(3600_000);

    // A token signed with the new key (by another instance) makes this one reload its key set...
    const fresh = await sign((await newKeyOf(db)).privateKey, claimsAt(clock.now(), client.client_id), {
      kid: rotation.kid,
    });
    expect((await probe(app, fresh)).statusCode).toBe(200);
    // ...after which it signs with the new key, publishes both, and still accepts the old token.
    expect(decodeProtectedHeader(await tokenFor(app, client)).kid).toBe(rotation.kid);
    expect((await jwksOf(app)).keys.map((k) => k.kid).sort()).toEqual([oldKid, rotation.kid].sort());
    expect((await probe(app, before)).statusCode).toBe(200);

    // Once the old key is past retirement, it is gone from the JWKS and its signatures fail,
    // even on a token that is otherwise in date.
    clock.set(new Date(retiresAt.getTime() + 1000).toISOString());
    try {
      expect((await jwksOf(app)).keys.map((k) => k.kid)).toEqual([rotation.kid]);
      const late = await sign(oldPrivate, claimsAt(clock.now(), client.client_id), { kid: oldKid });
      const res = await probe(app, late);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.message).toMatch(/unknown or retired key/);

      // The next rotation deletes the retired key, private part and all.
      const next = await rotateSigningKey(db.database.db, clock.now());
      expect(next.deleted).toEqual([oldKid]);
      const kids = (await listSigningKeys(db.database.db)).map((k) => k.kid);
      expect(kids).not.toContain(oldKid);
      expect(kids).toEqual([rotation.kid, next.kid]);
    } finally {
      clock.set(NOW);
    }
  });
});

async function newKeyOf(db: TestDatabase) {
  const rows = await db.database.db.select().from(signingKeys).where(sql`${signingKeys.retiresAt} is null`);
  return { privateKey: (await importJWK(rows[0]!.privateJwk as JWK, 'ES256')) as CryptoKey };
}

describe('first key creation', () => {
  it('creates exactly one active key when several instances start at once', async () => {
    const db = await openTestDatabase();
    const extra =
      TEST_DB === 'postgres'
        ? await Promise.all([1, 2, 3].map(() => openDatabase({ kind: 'postgres', url: db.url! })))
        : [];
    try {
      await db.database.db.execute(sql`delete from signing_keys`);
      const now = new Date(NOW);
      const dbs = [db.database, ...extra, db.database];
      await Promise.all(dbs.map((d) => ensureActiveSigningKey(d.db, now)));
      const keys = await listSigningKeys(db.database.db);
      expect(keys.filter((k) => k.retiresAt === null)).toHaveLength(1);
      expect(keys).toHaveLength(1);
    } finally {
      await Promise.all(extra.map((d) => d.close()));
      await db.dispose();
    }
  });

  it('refuses a second active key at the database level', async () => {
    const db = await openTestDatabase();
    try {
      const row = async (kid: string) => {
        const { privateKey } = await generateKeyPair('ES256', { extractable: true });
        const jwk = await exportJWK(privateKey);
        return { kid, privateJwk: jwk, publicJwk: jwk };
      };
      await db.database.db.insert(signingKeys).values(await row('first'));
      await expect(db.database.db.insert(signingKeys).values(await row('second'))).rejects.toThrow();
    } finally {
      await db.dispose();
    }
  });
});

describe('SIGNING_KEY from the configuration', () => {
  it('signs with the configured key (PEM or JWK), and database keys keep verifying', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(privateKey);
    const kid = await calculateJwkThumbprint(jwk, 'sha256');
    for (const signingKey of [await exportPKCS8(privateKey), JSON.stringify(jwk)]) {
      const db = await openTestDatabase();
      // A key this database already had, from before SIGNING_KEY was set.
      const before = await buildProbeApp(db.database, frozenClock(NOW));
      const earlier = await register(before);
      const earlierToken = await tokenFor(before, earlier);
      await before.close();
      const app = await buildProbeApp(db.database, frozenClock(NOW), { SIGNING_KEY: signingKey });
      try {
        const client = await register(app);
        const token = await tokenFor(app, client);
        expect(decodeProtectedHeader(token).kid).toBe(kid);
        expect((await probe(app, token)).json().identity.clientId).toBe(client.client_id);
        const kids = (await jwksOf(app)).keys.map((k) => k.kid);
        expect(kids).toContain(kid);
        expect(kids).toHaveLength(2);
        expect(kids).toContain(decodeProtectedHeader(earlierToken).kid);
        expect((await probe(app, earlierToken)).statusCode).toBe(200);
      } finally {
        await app.close();
        await db.dispose();
      }
    }
  });

  it('stops the start with a message naming SIGNING_KEY when the key is not usable', async () => {
    const db = await openTestDatabase();
    try {
      const rsa = await generateKeyPair('RS256', { extractable: true });
      const pem = await exportPKCS8(rsa.privateKey);
      await expect(
        buildApp(testConfig({ SIGNING_KEY: pem }), { database: db.database, logger: false }),
      ).rejects.toThrow(/SIGNING_KEY/);
      expect(() => testConfig({ SIGNING_KEY: 'not a key' })).toThrow(/SIGNING_KEY/);
    } finally {
      await db.dispose();
    }
  });
});
