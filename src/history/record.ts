import { setImmediate as nextTurn } from 'node:timers/promises';
import { changeHistory } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import type { Actor } from './actor.js';
import type { Change } from './changes.js';

/**
 * Rows per INSERT: 9 parameters each, well under PostgreSQL's limit, and on the embedded database
 * one chunk stays a few milliseconds of one turn of the event loop (see admin/import/records.ts).
 */
const HISTORY_CHUNK = 500;

/** Writes the changes, in the transaction of the write that made them, a chunk at a time. */
export async function recordChanges(tx: Tx, actor: Actor, changes: readonly Change[]): Promise<void> {
  for (let i = 0; i < changes.length; i += HISTORY_CHUNK) {
    if (i > 0) await nextTurn();
    await tx.insert(changeHistory).values(
      changes.slice(i, i + HISTORY_CHUNK).map((c) => ({
        ...c,
        actorKind: actor.kind,
        actorId: actor.id,
        actorLabel: actor.label,
      })),
    );
  }
}
