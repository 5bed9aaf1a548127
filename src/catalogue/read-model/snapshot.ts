import { setImmediate as nextTurn } from 'node:timers/promises';
import { Derived } from '../../core/derived.js';
import { ListColumns } from '../list-columns.js';
import { SearchMemo } from '../search/memo.js';
import { applySteps, type CatalogueDelta } from './apply.js';
import { buildSteps } from './build.js';
import type { DepartmentIndex } from './departments.js';
import type { CentreEntry, CentreRecord, SessionEntry, SessionRecord } from './entries.js';
import type { Indexes } from './indexes.js';
import type { SessionChunks } from './session-chunks.js';
import type { ShardedMap } from './sharded-map.js';
import type { UrlBuilder } from './url-builder.js';

/**
 * What snapshots derived from one full build share: the columns of their lists (a derived snapshot
 * shares every list it did not change) and what searches remember of their texts. A full build
 * starts afresh, so nothing a catalogue once held stays for the life of the process.
 */
interface Lineage {
  readonly urls: UrlBuilder;
  readonly columns: ListColumns;
  readonly searchMemo: SearchMemo;
}

/**
 * Immutable, fully indexed copy of the catalogue. A new version is either built whole (at start,
 * or after a gap in the change log) in slices that leave the event loop free between them, or
 * derived from the previous one by `apply`, which re-serialises only the changed sessions and
 * copies only the lists they sit in. Either way it is swapped in whole: a reader never sees half
 * an update.
 */
export class CatalogueSnapshot implements Indexes {
  readonly updatedAtIso: string;
  readonly sessions: SessionChunks;
  readonly departments: ReadonlyMap<string, DepartmentIndex>;
  readonly sessionsByCentre: ShardedMap<readonly SessionEntry[]>;
  readonly sessionsById: ShardedMap<SessionEntry>;
  readonly centresById: ReadonlyMap<string, CentreEntry>;
  readonly centresBySlug: ReadonlyMap<string, CentreEntry>;
  /** The typed columns searches walk, shared with the snapshots derived from this one. */
  readonly columns: ListColumns;
  /** Search texts resolved (towns, places, regions), shared likewise. */
  readonly searchMemo: SearchMemo;
  /**
   * What searches derive from this snapshot's centres and lists (search/snapshot-cache.ts): its
   * own, since centres and lists differ in the next.
   */
  readonly derived = new Derived();

  private constructor(
    readonly version: number,
    readonly updatedAt: Date,
    readonly baseVersion: number,
    /** The version at which a centre last changed (names and towns: what town searches match). */
    readonly centresVersion: number,
    private readonly lineage: Lineage,
    indexes: Indexes,
    /**
     * How many times approvals ended within this version (withoutEnded): a snapshot that differs
     * from another of the same version by the centres it dropped, for the caches keyed by version.
     */
    readonly turn = 0,
  ) {
    this.updatedAtIso = updatedAt.toISOString();
    this.sessions = indexes.sessions;
    this.departments = indexes.departments;
    this.sessionsByCentre = indexes.sessionsByCentre;
    this.sessionsById = indexes.sessionsById;
    this.centresById = indexes.centresById;
    this.centresBySlug = indexes.centresBySlug;
    this.columns = lineage.columns;
    this.searchMemo = lineage.searchMemo;
  }

  /** Builds in one go (tests, benchmarks, small catalogues). */
  static build(
    version: number,
    updatedAt: Date,
    centres: readonly CentreRecord[],
    sessions: readonly SessionRecord[],
    urls: UrlBuilder,
  ): CatalogueSnapshot {
    const steps = buildSteps(centres, sessions, urls);
    let step = steps.next();
    while (!step.done) step = steps.next();
    return new CatalogueSnapshot(version, updatedAt, version, version, newLineage(urls), step.value);
  }

  /** Builds in slices of a few milliseconds, yielding the event loop between them. */
  static async buildInSlices(
    version: number,
    updatedAt: Date,
    centres: readonly CentreRecord[],
    sessions: readonly SessionRecord[],
    urls: UrlBuilder,
  ): Promise<CatalogueSnapshot> {
    const steps = buildSteps(centres, sessions, urls);
    let step = steps.next();
    while (!step.done) {
      await nextTurn();
      step = steps.next();
    }
    return new CatalogueSnapshot(version, updatedAt, version, version, newLineage(urls), step.value);
  }

  get centreCount(): number {
    return this.centresById.size;
  }

  /**
   * A department's scheduled sessions, in session order (undefined when it had none at the last
   * full build and none came since).
   */
  deptSessions(code: string): SessionChunks | undefined {
    return this.departments.get(code)?.sessions;
  }

  /** The version at which a department's sessions last changed. */
  deptVersion(code: string): number {
    return this.departments.get(code)?.version || this.baseVersion;
  }

  /**
   * The next snapshot: this one with `delta` applied. Costs what the changed sessions cost (and the
   * lists they sit in), not what the catalogue holds.
   */
  apply(delta: CatalogueDelta): CatalogueSnapshot {
    const steps = applySteps(this, delta, this.lineage.urls);
    let step = steps.next();
    while (!step.done) step = steps.next();
    return this.next(delta, step.value);
  }

  /** `apply`, in slices of a few milliseconds, yielding the event loop between them. */
  async applyInSlices(delta: CatalogueDelta): Promise<CatalogueSnapshot> {
    const steps = applySteps(this, delta, this.lineage.urls);
    let step = steps.next();
    while (!step.done) {
      await nextTurn();
      step = steps.next();
    }
    return this.next(delta, step.value);
  }

  private next(delta: CatalogueDelta, indexes: Indexes, turn = this.turn): CatalogueSnapshot {
    const centresVersion = delta.centres.size > 0 ? delta.version : this.centresVersion;
    return new CatalogueSnapshot(
      delta.version,
      delta.updatedAt,
      this.baseVersion,
      centresVersion,
      this.lineage,
      indexes,
      turn,
    );
  }

  /**
   * The first instant (ms) a centre's approval here ends (Infinity when none does): the snapshot
   * answers for the catalogue until then, and the caches that key on it turn then.
   */
  get nextApprovalEnd(): number {
    // By centre map, which the snapshots of changes to sessions share: read once per change of
    // centres, not once per change (14,000 centres at ten times the demo).
    let first = approvalEnds.get(this.centresById);
    if (first === undefined) {
      first = Number.POSITIVE_INFINITY;
      for (const c of this.centresById.values()) if (c.approvalEndsAt < first) first = c.approvalEndsAt;
      approvalEnds.set(this.centresById, first);
    }
    return first;
  }

  /**
   * This snapshot without the centres whose approval has ended at `nowMs`, nor their sessions (the
   * same version, one turn on); itself when none has. What a centre removed by the change log
   * would be, so that every door drops it alike. Also returns the delta that did it (listeners
   * learn its sessions were removed).
   */
  withoutEnded(nowMs: number): { snapshot: CatalogueSnapshot; delta?: CatalogueDelta } {
    if (nowMs < this.nextApprovalEnd) return { snapshot: this };
    const centres = new Map<string, null>();
    const sessions = new Map<string, null>();
    for (const c of this.centresById.values()) if (c.approvalEndsAt <= nowMs) centres.set(c.view.id, null);
    // By id, not by the centres' lists: a cancelled session is known by id and in no list.
    for (const e of this.sessionsById.values()) if (centres.has(e.record.centreId)) sessions.set(e.record.id, null);
    const delta: CatalogueDelta = { version: this.version, updatedAt: this.updatedAt, centres, sessions };
    const steps = applySteps(this, delta, this.lineage.urls);
    let step = steps.next();
    while (!step.done) step = steps.next();
    return { snapshot: this.next(delta, step.value, this.turn + 1), delta };
  }
}

const approvalEnds = new WeakMap<ReadonlyMap<string, CentreEntry>, number>();

function newLineage(urls: UrlBuilder): Lineage {
  return { urls, columns: new ListColumns(), searchMemo: new SearchMemo() };
}
