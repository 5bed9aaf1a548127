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

/** The history table's rows for `changes`, made by `actor`. */
function historyRows(actor: Actor, changes: readonly Change[]) {
  return changes.map((c) => ({ ...c, actorKind: actor.kind, actorId: actor.id, actorLabel: actor.label }));
}

/** Writes the changes, in the transaction of the write that made them, a chunk at a time. */
export async function recordChanges(tx: Tx, actor: Actor, changes: readonly Change[]): Promise<void> {
  for (let i = 0; i < changes.length; i += HISTORY_CHUNK) {
    if (i > 0) await nextTurn();
    await tx.insert(changeHistory).values(historyRows(actor, changes.slice(i, i + HISTORY_CHUNK)));
  }
}

/**
 * The changes of one record, to be written by the very statement that makes them: a common table
 * expression for `tx.with(…)` in front of its UPDATE or INSERT, so that the write and its history
 * cost one round trip to the database, not two (a session's PATCH: seven statements, not eight). PostgreSQL
 * runs it with the statement, whether or not the statement reads it, and not at all when the
 * statement fails. Undefined when nothing changed.
 */
export function historyWith(tx: Tx, actor: Actor, changes: readonly Change[]) {
  if (changes.length === 0) return undefined;
  if (changes.length > HISTORY_CHUNK) throw new Error(`${changes.length} changes: one record has at most a few dozen`);
  return tx.$with('history').as(tx.insert(changeHistory).values(historyRows(actor, changes)));
}
