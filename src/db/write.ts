import { createHash } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from './connect.js';
import { pgError, refusalFor } from './pg-error.js';

/** The transaction handle drizzle passes to `db.transaction`'s callback. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * Runs at the end of every catalogue write, in its transaction, after the write's own work: the
 * rows it changed are in catalogue_changes_pending (its own only; they take their version at
 * COMMIT, migration 0027). What a change causes elsewhere (a webhook's events) is then written
 * with it, whichever door made it. `wanted` says whether there is anyone to tell at all (a
 * subscription, an alert): read with the write's first statement, it costs no round trip of its own.
 * On PostgreSQL that statement goes with BEGIN, its values written into its text: give `wanted` only
 * the service's own strings, numbers and booleans, or values compared with a column (which encodes
 * them: a Date against a timestamp column), never a Date or a Buffer of its own.
 */
export interface CatalogueWriteHook {
  wanted: () => SQL;
  run: (tx: Tx) => Promise<void>;
}

/**
 * A database's hooks, the name its writes' opening statement is kept planned under (made from its
 * text), and how it runs a catalogue write's transaction itself, where it does (PostgreSQL).
 */
interface WriteHooks {
  hooks: Map<string, CatalogueWriteHook>;
  openingName?: string;
  transaction?: CatalogueTransaction;
}

/**
 * What a catalogue write was told of the catalogue version its COMMIT took (migration 0029): the
 * version, null when it changed nothing, unset where the database does not tell (embedded). Over
 * several writes, the latest.
 */
export interface Told {
  version?: number | null;
}

/**
 * A catalogue write's transaction as a database runs it itself (PostgreSQL, db/postgres.ts): `BEGIN`
 * and the opening statement, its values written into its text, sent as one simple query (one round
 * trip: the driver waits for each statement's answer before it sends the next); then `run` with the
 * transaction and the opening's row (its columns in order); `COMMIT`, or `ROLLBACK` if anything
 * failed. Resolves with `run`'s result and the version COMMIT told (null: none, nothing changed).
 */
export type CatalogueTransaction = <T>(
  opening: SQL,
  run: (tx: Tx, opened: unknown[]) => Promise<T>,
) => Promise<{ result: T; version: number | null }>;

/** Has `db` run its catalogue writes' transactions with `transaction` (see CatalogueTransaction). */
export function runsCatalogueTransactions(db: Db, transaction: CatalogueTransaction): void {
  hooksOf(db).transaction = transaction;
}

// Per database handle, by name: an app registers its hooks on the database it was given, and a
// second app on the same handle (tests) replaces them rather than running them twice.
const writeHooks = new WeakMap<Db, WriteHooks>();

function hooksOf(db: Db): WriteHooks {
  const registered = writeHooks.get(db);
  if (registered) return registered;
  const none: WriteHooks = { hooks: new Map() };
  writeHooks.set(db, none);
  return none;
}

/** Registers (or replaces) the hook `name` on this database's catalogue writes. */
export function onCatalogueWrite(db: Db, name: string, hook: CatalogueWriteHook): void {
  const registered = hooksOf(db);
  registered.hooks.set(name, hook);
  registered.openingName = undefined; // another text: another name
}

const TOLD = /^catalogue version (\d+)$/;

/** The version a notice of migration 0029 tells (`catalogue version 42`), or undefined for any other notice. */
export function toldVersion(notice: string | undefined): number | undefined {
  const version = TOLD.exec(notice ?? '')?.[1];
  return version === undefined ? undefined : Number(version);
}

/**
 * A catalogue write's first statement: the change log deferred, and whether each hook is wanted.
 * Where the database runs the transaction itself, it is sent with BEGIN and asks for the notice that
 * tells the version (at the level that sends it, whatever the server's default); else it is kept
 * planned (db/prepared.ts) under a name made from its text, the same for the same hooks.
 */
function opening(db: Db | Tx, registered: WriteHooks, hooks: CatalogueWriteHook[]) {
  const tell: Record<string, SQL> = registered.transaction
    ? {
        tell: sql`set_config('catalogue.tell', 'on', true)`,
        notices: sql`set_config('client_min_messages', 'notice', true)`,
      }
    : {};
  const columns = {
    deferred: sql`set_config('catalogue.deferred', 'on', true)`,
    ...tell,
    ...Object.fromEntries(hooks.map((h, i) => [`h${i}`, sql<boolean>`(${h.wanted()})`])),
  };
  const query = db.select(columns).from(sql`(select) as opening`);
  return { query, names: Object.keys(columns) };
}

/**
 * One catalogue write, with the change log deferred (`catalogue.deferred`, migration 0027): its
 * statements take no version as they go, and COMMIT takes one for the whole transaction, so the
 * catalogue's version lock is held only while PostgreSQL commits — not across this process's round
 * trips, which wait on its event loop (under saturated reads, 5 writers queued for it on average).
 * Writers take that lock last, after their own row locks, so it cannot close a deadlock among them;
 * a transaction PostgreSQL aborted as a deadlock or serialization loser is still retried.
 * Constraint violations come out as WriteRefused (db/pg-error.ts). `told`, when given, learns the
 * version the write's COMMIT took (Told), for its answer to wait until it is served.
 */
export async function catalogueWrite<T>(db: Db, run: (tx: Tx) => Promise<T>, told?: Told): Promise<T> {
  const registered = hooksOf(db);
  for (let attempt = 1; ; attempt++) {
    try {
      // The hooks wanted are read by the opening, at the write's start rather than its end: a
      // subscription or an alert made while the write runs is as concurrent with it either way.
      const hooks = [...registered.hooks.values()];
      const write = async (tx: Tx, wanted: Record<string, unknown> | undefined) => {
        const result = await run(tx);
        for (const [i, hook] of hooks.entries()) if (wanted?.[`h${i}`] === true) await hook.run(tx);
        return result;
      };
      if (registered.transaction) {
        const { query, names } = opening(db, registered, hooks);
        // The row's columns, named as drizzle names them (in the order selected).
        const named = (row: unknown[]) => Object.fromEntries(names.map((name, i) => [name, row[i]]));
        const { result, version } = await registered.transaction(query.getSQL(), (tx, row) => write(tx, named(row)));
        if (told) told.version = Math.max(told.version ?? 0, version ?? 0) || null;
        return result;
      }
      return await db.transaction(async (tx) => {
        const { query } = opening(tx, registered, hooks);
        registered.openingName ??= `catalogue_write_${createHash('sha256').update(query.toSQL().sql).digest('hex').slice(0, 16)}`;
        const [wanted] = (await query.prepare(registered.openingName).execute()) as Record<string, unknown>[];
        return write(tx, wanted);
      });
    } catch (err) {
      const code = pgError(err)?.code;
      if ((code === '40P01' || code === '40001') && attempt < 3) continue;
      throw refusalFor(err) ?? err;
    }
  }
}
