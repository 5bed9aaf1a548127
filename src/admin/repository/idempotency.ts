import { and, eq } from 'drizzle-orm';
import { idempotencyKeys } from '../../db/schema.js';
import type { Tx } from '../../db/write.js';
import { WriteRefused } from '../../db/write-refused.js';
import type { AdminSession } from '../response-schemas.js';

export interface Idempotency {
  apiKeyId: string;
  key: string;
  /** What the request asked (method, path, body): the same key for another request is refused. */
  requestHash: string;
}

const sameKey = (idempotency: Idempotency) =>
  and(eq(idempotencyKeys.apiKeyId, idempotency.apiKeyId), eq(idempotencyKeys.key, idempotency.key));

/**
 * Claims the key in this transaction, or finds the answer stored under it: that answer is
 * replayed instead of a second change. The same key for a different request is refused.
 */
export async function claimIdempotencyKey(tx: Tx, idempotency: Idempotency): Promise<AdminSession | undefined> {
  // Waits for a concurrent call with the same key to finish, then finds its row.
  const inserted = await tx
    .insert(idempotencyKeys)
    .values({ ...idempotency, status: 0, body: {} })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  if (inserted.length > 0) return undefined;
  const [stored] = await tx.select().from(idempotencyKeys).where(sameKey(idempotency));
  if (stored && stored.requestHash !== idempotency.requestHash)
    throw new WriteRefused(
      422,
      'idempotency_key_reused',
      'This Idempotency-Key was already used for a different request. Use a new key for a new change.',
    );
  return stored ? (stored.body as AdminSession) : undefined;
}

/** Stores the answer under the claimed key, in the transaction that made the change. */
export async function rememberAnswer(tx: Tx, idempotency: Idempotency, session: AdminSession): Promise<void> {
  await tx.update(idempotencyKeys).set({ status: 200, body: session }).where(sameKey(idempotency));
}
