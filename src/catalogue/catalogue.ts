import type { FastifyBaseLogger } from 'fastify';
import { type Clock, systemClock } from '../core/clock.js';
import type { Database } from '../db/connect.js';
import type { Told } from '../db/write.js';
import { pruneChangeHistory } from '../history/prune.js';
import { approvalEnded } from './approval.js';
import { HeardChanges } from './heard-changes.js';
import { type CatalogueDelta, CatalogueSnapshot, type CentreRecord, type UrlBuilder } from './read-model.js';
import { type Announcement, announcementOf } from './recent-changes.js';
import { loadCatalogue, pruneHistory, readChangesSince, type StoredCatalogue, touchEndedCentre } from './repository.js';
import { keepCopyCurrent, readWithCopy } from './stored-copy.js';
import { Waiters } from './waiters.js';

/** How long the change log and stored idempotent answers are kept, and how often they are pruned. */
export const HISTORY_KEEP_MS = 24 * 3600 * 1000;
const PRUNE_EVERY_MS = 10 * 60 * 1000;

export interface CatalogueOptions {
  /**
   * A file where the whole catalogue is kept between runs (stored-copy.ts): read at open instead of
   * the database when it holds the database's very state, written when it does not, and again at
   * close when the catalogue changed meanwhile. Only for a database no other process writes while
   * this one runs without telling it (the embedded one): the copy is checked at open, not after.
   */
  storedCopy?: string;
}

/** What a listener hears after each swap: the changes applied, or that the whole model was rebuilt. */
export type CatalogueUpdate =
  | { kind: 'delta'; snapshot: CatalogueSnapshot; previous: CatalogueSnapshot; delta: CatalogueDelta }
  | { kind: 'reload'; snapshot: CatalogueSnapshot; previous: CatalogueSnapshot };

const COPY_NOT_KEPT = 'could not keep a copy of the catalogue; the next start reads the database';

/**
 * How long a writer waits for its commit's announcement before it reads the change log itself
 * (served()): an announcement comes within milliseconds; one lost on the way costs this much.
 */
const SERVED_WAIT_MS = 1_000;

/**
 * Holds the current read model and keeps it in step with the database. On a change notification
 * it applies what changed (a few sessions cost a few sessions, whatever the catalogue's size): on
 * PostgreSQL, the change the notification carries when it is the next version and nobody waits for the log's own
 * word (recent-changes.ts's announcementOf), else what the change log says from the version it
 * holds. Only a gap in the log, a wholesale replacement or a very large batch makes it rebuild, in
 * slices, while the old snapshot keeps serving. Catch-ups are coalesced: a burst of writes costs at
 * most one in flight plus one after it.
 */
export class Catalogue {
  #snapshot: CatalogueSnapshot;
  #updating: Promise<void> | undefined;
  #again = false;
  /** The highest version announced during the catch-up in flight, which that catch-up may already hold. */
  #announced = 0;
  /** Catch-ups begun since start, and the callers of refresh() waiting for one numbered at least `after`. */
  #begun = 0;
  /** Reads of the change log since start. */
  #reads = 0;
  readonly #heardChanges = new HeardChanges();
  readonly #waiters = new Waiters();
  /** The writers waiting for the snapshot to reach a version (served()). */
  readonly #versionWaiters = new Waiters();
  #unlisten: (() => Promise<void>) | undefined;
  #listening = true;
  #lastRefreshFailed = false;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  #listeners = new Set<(update: CatalogueUpdate) => void>();
  #prune: NodeJS.Timeout | undefined;
  #approvalEnd: NodeJS.Timeout | undefined;
  /** Milliseconds the last catch-up spent building or applying (not waiting for the database). */
  lastApplyMs = 0;
  /** The stamp of the catalogue the stored copy holds (written or read at open). */
  #copyStamp: string | undefined;
  #storedCopy: string | undefined;

  private constructor(
    private readonly database: Database,
    private readonly urls: UrlBuilder,
    private readonly log: FastifyBaseLogger,
    private readonly clock: Clock,
    initial: CatalogueSnapshot,
  ) {
    this.#snapshot = initial;
  }

  static async open(
    database: Database,
    urls: UrlBuilder,
    log: FastifyBaseLogger,
    clock: Clock = systemClock,
    options: CatalogueOptions = {},
  ): Promise<Catalogue> {
    const stored = options.storedCopy
      ? await readWithCopy(database.db, options.storedCopy, (err) => log.warn({ err }, COPY_NOT_KEPT))
      : undefined;
    const catalogue = new Catalogue(database, urls, log, clock, await build(database, urls, clock, stored?.catalogue));
    catalogue.#storedCopy = options.storedCopy;
    catalogue.#copyStamp = stored?.copyStamp;
    catalogue.#unlisten = await database.listenCatalogueChanges(
      (payload) => catalogue.#heard(announcementOf(payload)),
      (listening) => {
        catalogue.#listening = listening;
      },
    );
    // A change committed between the first build and the listener's start was announced to nobody.
    void catalogue.refresh();
    // Any instance may prune; doing it twice deletes nothing the second time.
    catalogue.#prune = setInterval(() => void catalogue.prune(new Date()), PRUNE_EVERY_MS);
    catalogue.#prune.unref();
    catalogue.#watchApprovalEnd();
    return catalogue;
  }

  /** Deletes history older than a day (change log, idempotent answers). Never rejects. */
  async prune(now: Date): Promise<void> {
    try {
      const gone = await pruneHistory(this.database.db, now, HISTORY_KEEP_MS);
      if (gone.changes || gone.idempotency) this.log.info(gone, 'pruned history older than a day');
      // The centres' history rides the same loop: any instance, every ten minutes, an idempotent delete.
      const centreHistory = await pruneChangeHistory(this.database.db, now);
      if (centreHistory) this.log.info({ centreHistory }, 'pruned centre history older than a year');
    } catch (err) {
      this.log.warn({ err }, 'pruning history failed; it is tried again in ten minutes');
    }
  }

  /**
   * The current snapshot. A centre whose approval ended since (on the service clock) is dropped
   * first, with its sessions, as if the change log had removed it: the one check every reader passes.
   */
  get snapshot(): CatalogueSnapshot {
    const nowMs = this.clock.now().getTime();
    if (nowMs >= this.#snapshot.nextApprovalEnd) {
      const previous = this.#snapshot;
      const { snapshot, delta } = previous.withoutEnded(nowMs);
      if (delta) {
        this.log.info({ centres: delta.centres.size }, 'approvals ended: centres taken off the catalogue');
        this.#swap({ kind: 'delta', snapshot, previous, delta });
        for (const id of delta.centres.keys()) {
          const endedAt = new Date(previous.centresById.get(id)?.approvalEndsAt ?? nowMs);
          touchEndedCentre(this.database.db, id, endedAt).catch((err) =>
            this.log.warn({ err }, 'could not log an approval’s end; the centre is off this instance all the same'),
          );
        }
      }
    }
    return this.#snapshot;
  }

  /**
   * True while changes may not be reaching this instance: its change notifications are cut off
   * (the database is unreachable) or its last catch-up failed. Both retry by themselves within
   * about a second.
   */
  get stale(): boolean {
    return !this.#listening || this.#lastRefreshFailed;
  }

  /** Calls `listener` after every swap of the snapshot. Returns the unsubscribe function. */
  subscribe(listener: (update: CatalogueUpdate) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Catches up with the stored catalogue: resolves once a catch-up that began after this call has
   * ended, so a write committed before the call is in the snapshot (unless the catch-up failed).
   * Never rejects. Under a steady stream of changes the catch-ups follow one another without end;
   * a caller waits for at most the one in flight and the next, not for the stream to pause.
   */
  refresh(): Promise<void> {
    const done = this.#waiters.wait(this.#begun + 1);
    if (this.#updating) this.#again = true;
    else this.#catchUpLoop();
    return done;
  }

  /**
   * Runs `write` (catalogue writes given `told`, db/write.ts) and resolves with its result once this
   * instance serves what it wrote, for a writer's answer to hold its own write. On PostgreSQL each
   * write is told the version its COMMIT took, and that version's announcement, which every instance
   * hears and applies, brings it here: no read of the change log for the writer. A write that changed
   * nothing waits for nothing. As refresh() where the database does not tell versions (embedded);
   * while changes may not be reaching this instance; when the version told is not above the one
   * held when the write began (the database was replaced by an older one: its log must say); or once
   * SERVED_WAIT_MS passed without the announcement.
   */
  async served<T>(write: (told: Told) => Promise<T>): Promise<T> {
    const before = this.#snapshot.version;
    const told: Told = {};
    const result = await write(told);
    await this.#holds(told.version, before);
    return result;
  }

  #holds(version: number | null | undefined, before: number): Promise<void> {
    if (version === null) return Promise.resolve();
    if (version === undefined || version <= before || this.stale || this.#closed) return this.refresh();
    if (this.#snapshot.version >= version) return Promise.resolve();
    return new Promise((resolve) => {
      // A waiter left by the fallback is resolved by the next version applied, or at close.
      const fallback = setTimeout(() => void this.refresh().then(resolve), SERVED_WAIT_MS);
      fallback.unref();
      void this.#versionWaiters.wait(version).then(() => {
        clearTimeout(fallback);
        resolve();
      });
    });
  }

  /** Catch-ups begun since the start: each applied an announced change or read the change log. */
  get catchUps(): number {
    return this.#begun;
  }

  /** Reads of the change log since the start (the catch-ups that applied no announced change). */
  get logReads(): number {
    return this.#reads;
  }

  /**
   * A change the database announced (undefined when the notification said nothing readable). One
   * announced while a catch-up runs is owed a catch-up of its own only if that one ends without it:
   * a writer's catch-up, begun once its commit returned, usually reads the change whose notification
   * arrives meanwhile, and reading the log again would find nothing.
   */
  #heard(announced: Announcement | undefined): void {
    const version = announced?.version;
    if (version !== undefined && version <= this.#snapshot.version) return;
    // Embedded, every change is this instance's own write, whose catch-up reads the log anyway; and
    // there, applied without that read, a writer that never paused starved every other request of
    // the one process (its database answers without I/O: test/catalogue/refresh-under-changes.test.ts).
    this.#heardChanges.hear(announced, this.database.kind === 'postgres');
    if (!this.#updating) this.#catchUpLoop();
    else this.#announced = Math.max(this.#announced, version ?? Number.POSITIVE_INFINITY);
  }

  /** Whether another catch-up is owed once one ends: refresh() was called, or a version announced is not held yet. */
  #owed(): boolean {
    const missing = this.#announced > this.#snapshot.version;
    this.#announced = 0;
    return this.#again || missing;
  }

  /** Catch-ups one after the other while refresh() is called during them. */
  #catchUpLoop(): void {
    this.#updating = (async () => {
      do {
        this.#again = false;
        const begun = ++this.#begun;
        try {
          await this.#catchUp(begun);
          this.#lastRefreshFailed = false;
        } catch (err) {
          // Keep serving the last good snapshot, and try again in a second: the notification
          // that asked for this catch-up will not come again.
          this.#lastRefreshFailed = true;
          this.log.warn({ err }, 'catalogue catch-up failed');
          if (!this.#closed && !this.#retry) {
            this.#retry = setTimeout(() => {
              this.#retry = undefined;
              void this.refresh();
            }, 1000);
            this.#retry.unref();
          }
        } finally {
          this.#waiters.release(begun);
        }
      } while (this.#owed() && !this.#closed);
    })().finally(() => {
      this.#updating = undefined;
      if (this.#waiters.size === 0 && !this.#owed()) return;
      // A caller or an announcement came after the last catch-up began (between the loop's end and
      // now): its own catch-up is still to run. Once closed, nobody will run it.
      if (this.#closed) this.#waiters.release(Number.POSITIVE_INFINITY);
      else this.#catchUpLoop();
    });
  }

  /**
   * Catch-up number `begun`: the next version as announced, when that was heard, no caller of
   * refresh() waits for this catch-up (a writer waits for a state that holds its commit, which may be
   * announced after the next one) and no change of unknown version was announced since the last read;
   * else the change log as it stands.
   */
  async #catchUp(begun: number): Promise<void> {
    const previous = this.snapshot;
    this.#heardChanges.forgetUpTo(previous.version);
    const mustRead = this.#heardChanges.readOwed || this.#waiters.waitFor(begun);
    const heard = mustRead ? undefined : this.#heardChanges.takeAfter(previous.version);
    if (!heard) {
      this.#heardChanges.reading();
      this.#reads++;
    }
    // One statement on PostgreSQL (recent-changes.ts). Embedded, the transaction: under a writer that
    // never pauses, PGlite's one connection served a write's own transaction only after that writer
    // was done (test/catalogue/refresh-under-changes.test.ts), and no other instance shares the cost.
    const read =
      heard ??
      (await readChangesSince(this.database.db, previous.version, {
        oneStatement: this.database.kind === 'postgres',
      }));
    if (read === undefined) return;
    const started = performance.now();
    if (read === 'reload') {
      // What was heard may belong to a database since replaced (an older one): the rebuild holds the rest.
      this.#heardChanges.clear();
      const snapshot = await build(this.database, this.urls, this.clock);
      this.#swap({ kind: 'reload', snapshot, previous });
      this.lastApplyMs = performance.now() - started;
      this.log.info(
        { version: snapshot.version, sessions: snapshot.sessions.length, ms: Math.round(this.lastApplyMs) },
        'catalogue reloaded',
      );
      return;
    }
    const changes = withoutEnded(read, this.clock.now().getTime());
    const snapshot = await previous.applyInSlices(changes);
    this.lastApplyMs = performance.now() - started;
    this.#swap({ kind: 'delta', snapshot, previous, delta: changes });
  }

  /**
   * Reads the snapshot when the next approval ends, so that the change stream hears of it then
   * even if no request comes (any read before does it as well).
   */
  #watchApprovalEnd(): void {
    clearTimeout(this.#approvalEnd);
    const next = this.#snapshot.nextApprovalEnd;
    if (this.#closed || !Number.isFinite(next)) return;
    const delay = Math.min(Math.max(next - this.clock.now().getTime(), 0), 2 ** 31 - 1);
    this.#approvalEnd = setTimeout(() => {
      void this.snapshot;
      this.#watchApprovalEnd();
    }, delay);
    this.#approvalEnd.unref();
  }

  #swap(update: CatalogueUpdate): void {
    const ends = this.#snapshot.nextApprovalEnd;
    this.#snapshot = update.snapshot;
    if (update.snapshot.nextApprovalEnd !== ends) this.#watchApprovalEnd();
    this.#versionWaiters.release(update.snapshot.version);
    for (const listener of this.#listeners) {
      try {
        listener(update);
      } catch (err) {
        this.log.error({ err }, 'catalogue listener failed');
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    clearInterval(this.#prune);
    clearTimeout(this.#approvalEnd);
    await this.#unlisten?.();
    await this.#updating;
    this.#versionWaiters.release(Number.POSITIVE_INFINITY);
    await this.#keepCopy();
  }

  /** At close, the stored copy brought up to the database's state when the catalogue changed since. */
  async #keepCopy(): Promise<void> {
    if (!this.#storedCopy) return;
    // On failure the copy on disk names an older state, which the next start will see and not use.
    await keepCopyCurrent(this.database.db, this.#storedCopy, this.#copyStamp, (err) =>
      this.log.warn({ err }, COPY_NOT_KEPT),
    );
  }
}

async function build(
  database: Database,
  urls: UrlBuilder,
  clock: Clock,
  read?: StoredCatalogue,
): Promise<CatalogueSnapshot> {
  const stored = read ?? (await loadCatalogue(database.db));
  const nowMs = clock.now().getTime();
  const centres = stored.centres.filter((c) => !approvalEnded(c, nowMs));
  return CatalogueSnapshot.buildInSlices(stored.version, stored.updatedAt, centres, stored.sessions, urls);
}

/** The delta with each centre whose approval has ended read as removed (its sessions then find no centre). */
function withoutEnded(delta: CatalogueDelta, nowMs: number): CatalogueDelta {
  let centres: Map<string, CentreRecord | null> | undefined;
  for (const [id, record] of delta.centres) {
    if (!record || !approvalEnded(record, nowMs)) continue;
    centres ??= new Map(delta.centres);
    centres.set(id, null);
  }
  return centres ? { ...delta, centres } : delta;
}
