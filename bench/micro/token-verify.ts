/**
 * tsx bench/micro/token-verify.ts — the cost of checking a presented access token, with and without
 * the registered-client check (a cached lookup), in-process on an in-memory database.
 */
import { AccessTokens } from '../../src/auth/access-tokens.js';
import { insertClient } from '../../src/auth/clients.js';
import { KnownClients } from '../../src/auth/known-clients.js';
import { SigningKeyStore } from '../../src/auth/signing-keys.js';
import { authUrls } from '../../src/auth/urls.js';
import { systemClock } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';

const N = Number(process.env.N ?? 5000);
const database = await openDatabase({ kind: 'pglite', dataDir: 'memory://' });
await database.migrate();
const keys = await SigningKeyStore.open(database.db, { clock: systemClock });
const urls = authUrls('http://localhost:3000');
await insertClient(database.db, {
  clientId: 'cl_bench',
  secretHash: 'x',
  clientName: 'bench',
  tokenEndpointAuthMethod: 'client_secret_basic',
  grantTypes: ['client_credentials'],
  redirectUris: [],
  createdAt: new Date(),
});
const without = new AccessTokens(keys, urls, systemClock);
const withCheck = new AccessTokens(keys, urls, systemClock, new KnownClients(database.db));
const { accessToken } = await without.issue('cl_bench');

async function time(label: string, tokens: AccessTokens) {
  for (let i = 0; i < 500; i++) await tokens.verify(accessToken); // warm-up (and the first lookup)
  const started = performance.now();
  for (let i = 0; i < N; i++) await tokens.verify(accessToken);
  const us = ((performance.now() - started) / N) * 1000;
  console.log(`${label.padEnd(34)} ${us.toFixed(1)} µs per verification`);
  return us;
}
for (let round = 0; round < 2; round++) {
  const a = await time('signature and claims only', without);
  const b = await time('+ registered-client check (cached)', withCheck);
  console.log(`ratio ${(b / a).toFixed(3)}`);
}
await database.close();
