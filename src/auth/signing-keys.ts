import { asc, isNull, lt, sql } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, importPKCS8, type JWK } from 'jose';
import { ConfigError } from '../config.js';
import type { Clock } from '../core/clock.js';
import type { Db } from '../db/connect.js';
import { signingKeys } from '../db/schema.js';
import { KEY_REFRESH_SECONDS, KEY_RETIREMENT_GRACE_SECONDS } from './policy.js';

export const SIGNING_ALG = 'ES256';
// Serialises rotations across instances and the CLI sharing one database.
const ROTATION_LOCK_KEY = 7_312_028;
// An unknown kid makes the store re-read the database at most this often, so that garbage
// tokens with random kids cannot turn into a query per request.
const UNKNOWN_KID_RELOAD_MS = 5_000;

export interface PublicSigningJwk extends JWK {
  kid: string;
  alg: typeof SIGNING_ALG;
  use: 'sig';
}

export interface SigningKeyInfo {
  kid: string;
  createdAt: Date;
  retiresAt: Date | null;
}

interface GeneratedKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: PublicSigningJwk;
}

function publicPart(jwk: JWK, kid: string): PublicSigningJwk {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid, alg: SIGNING_ALG, use: 'sig' };
}

async function generateSigningKey(): Promise<GeneratedKey> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const privateJwk = await exportJWK(privateKey);
  // The RFC 7638 thumbprint: a stable kid derived from the key itself.
  const kid = await calculateJwkThumbprint(privateJwk, 'sha256');
  return { kid, privateJwk: { ...privateJwk, kid, alg: SIGNING_ALG }, publicJwk: publicPart(privateJwk, kid) };
}

/**
 * Creates the first signing key if there is no active one. Safe when several instances start at
 * once: the partial unique index allows one active key, and the losers' inserts do nothing.
 */
export async function ensureActiveSigningKey(db: Db, now: Date): Promise<void> {
  const active = await db.select({ kid: signingKeys.kid }).from(signingKeys).where(isNull(signingKeys.retiresAt));
  if (active.length > 0) return;
  const key = await generateSigningKey();
  await db
    .insert(signingKeys)
    .values({ kid: key.kid, privateJwk: key.privateJwk, publicJwk: key.publicJwk, createdAt: now })
    .onConflictDoNothing();
}

export interface RotationResult {
  kid: string;
  retiring: SigningKeyInfo[];
  deleted: string[];
}

/**
 * Adds a new active key. The previous one keeps verifying until every token it signed has
 * expired (KEY_RETIREMENT_GRACE_SECONDS), then drops out of the JWKS; keys retired before `now`
 * are deleted, private key and all.
 */
export async function rotateSigningKey(db: Db, now: Date): Promise<RotationResult> {
  const key = await generateSigningKey();
  const retiresAt = new Date(now.getTime() + KEY_RETIREMENT_GRACE_SECONDS * 1000);
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${ROTATION_LOCK_KEY})`);
    const deleted = await tx
      .delete(signingKeys)
      .where(lt(signingKeys.retiresAt, now))
      .returning({ kid: signingKeys.kid });
    const retiring = await tx
      .update(signingKeys)
      .set({ retiresAt })
      .where(isNull(signingKeys.retiresAt))
      .returning({ kid: signingKeys.kid, createdAt: signingKeys.createdAt, retiresAt: signingKeys.retiresAt });
    await tx
      .insert(signingKeys)
      .values({ kid: key.kid, privateJwk: key.privateJwk, publicJwk: key.publicJwk, createdAt: now });
    return { kid: key.kid, retiring, deleted: deleted.map((d) => d.kid) };
  });
}

export async function listSigningKeys(db: Db): Promise<SigningKeyInfo[]> {
  return db
    .select({ kid: signingKeys.kid, createdAt: signingKeys.createdAt, retiresAt: signingKeys.retiresAt })
    .from(signingKeys)
    .orderBy(asc(signingKeys.createdAt));
}

interface LoadedKey {
  kid: string;
  publicJwk: PublicSigningJwk;
  publicKey: CryptoKey;
  privateKey: CryptoKey;
  createdAt: Date;
  retiresAt: Date | null;
}

/** Reads SIGNING_KEY: an EC P-256 private key as a PKCS#8 PEM or as a JWK (JSON). */
async function importConfiguredKey(text: string): Promise<LoadedKey> {
  let privateKey: CryptoKey;
  try {
    if (text.trimStart().startsWith('{')) {
      const jwk = JSON.parse(text) as JWK;
      if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string')
        throw new Error('not an EC P-256 private key');
      privateKey = (await importJWK({ ...jwk, ext: true }, SIGNING_ALG)) as CryptoKey;
    } else {
      privateKey = await importPKCS8(text.replace(/\\n/g, '\n'), SIGNING_ALG, { extractable: true });
    }
  } catch (err) {
    throw new ConfigError(
      `SIGNING_KEY must be an EC P-256 private key, as a PKCS#8 PEM or a JWK: ${(err as Error).message}`,
    );
  }
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  const publicJwk = publicPart(jwk, kid);
  const publicKey = (await importJWK(publicJwk, SIGNING_ALG)) as CryptoKey;
  return { kid, publicJwk, publicKey, privateKey, createdAt: new Date(0), retiresAt: null };
}

async function loadRow(row: typeof signingKeys.$inferSelect): Promise<LoadedKey> {
  const publicJwk = row.publicJwk as PublicSigningJwk;
  return {
    kid: row.kid,
    publicJwk,
    publicKey: (await importJWK(publicJwk, SIGNING_ALG)) as CryptoKey,
    privateKey: (await importJWK(row.privateJwk as JWK, SIGNING_ALG)) as CryptoKey,
    createdAt: row.createdAt,
    retiresAt: row.retiresAt,
  };
}

export interface SigningKeyStoreOptions {
  clock: Clock;
  /** SIGNING_KEY from the configuration: when set, it signs, and database keys only verify. */
  configuredKey?: string | undefined;
  onReloadError?: (err: unknown) => void;
}

/**
 * The key set, cached in memory. Signing uses the active key; verification accepts every key not
 * yet retired. The cache is re-read in the background every KEY_REFRESH_SECONDS, and at once
 * (rate-limited) when a token names a kid it does not know, so a rotation made by another
 * instance or the CLI is picked up without a restart.
 */
export class SigningKeyStore {
  private keys = new Map<string, LoadedKey>();
  private active: LoadedKey | undefined;
  private loadedAt = 0;
  private lastUnknownKidReload = Number.NEGATIVE_INFINITY;
  private reloading: Promise<void> | undefined;

  private constructor(
    private readonly db: Db,
    private readonly options: SigningKeyStoreOptions,
    private readonly configured: LoadedKey | undefined,
  ) {}

  static async open(db: Db, options: SigningKeyStoreOptions): Promise<SigningKeyStore> {
    const configured = options.configuredKey ? await importConfiguredKey(options.configuredKey) : undefined;
    if (!configured) await ensureActiveSigningKey(db, options.clock.now());
    const store = new SigningKeyStore(db, options, configured);
    await store.reload();
    return store;
  }

  /** Re-reads the key set from the database (one reload at a time). */
  reload(): Promise<void> {
    this.reloading ??= this.load().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  private async load(): Promise<void> {
    const rows = await this.db.select().from(signingKeys).orderBy(asc(signingKeys.createdAt));
    const keys = new Map<string, LoadedKey>();
    for (const row of rows) {
      const cached = this.keys.get(row.kid);
      // Keys never change once written, except for retires_at.
      keys.set(row.kid, cached ? { ...cached, retiresAt: row.retiresAt } : await loadRow(row));
    }
    if (this.configured) keys.set(this.configured.kid, this.configured);
    const active =
      this.configured ??
      [...keys.values()].filter((k) => k.retiresAt === null).at(-1) ??
      // Only if someone retired every key by hand: keep signing with the newest rather than fail.
      [...keys.values()].at(-1);
    if (!active) throw new Error('no signing key in the database');
    this.keys = keys;
    this.active = active;
    this.loadedAt = performance.now();
  }

  private refreshIfStale(): void {
    if (performance.now() - this.loadedAt < KEY_REFRESH_SECONDS * 1000) return;
    this.reload().catch((err: unknown) => this.options.onReloadError?.(err));
  }

  private usable(key: LoadedKey): boolean {
    return key.retiresAt === null || key.retiresAt.getTime() > this.options.clock.now().getTime();
  }

  /** The key to sign new tokens with. */
  signingKey(): { kid: string; privateKey: CryptoKey } {
    this.refreshIfStale();
    const active = this.active!;
    return { kid: active.kid, privateKey: active.privateKey };
  }

  /** The public key for `kid`, or undefined when it is unknown or retired. */
  async verificationKey(kid: string): Promise<CryptoKey | undefined> {
    this.refreshIfStale();
    let key = this.keys.get(kid);
    if (!key && performance.now() - this.lastUnknownKidReload >= UNKNOWN_KID_RELOAD_MS) {
      this.lastUnknownKidReload = performance.now();
      try {
        await this.reload();
      } catch (err) {
        this.options.onReloadError?.(err);
      }
      key = this.keys.get(kid);
    }
    return key && this.usable(key) ? key.publicKey : undefined;
  }

  /** The JWKS document: every public key that still verifies. */
  jwks(): { keys: PublicSigningJwk[] } {
    this.refreshIfStale();
    return { keys: [...this.keys.values()].filter((k) => this.usable(k)).map((k) => k.publicJwk) };
  }
}
