import type { CatalogueDelta, SessionRecord } from './read-model.js';
import type { Announcement } from './recent-changes.js';

/** Changes kept at most: past this many unapplied, more are read from the log. */
const HEARD_MAX = 1000;

/**
 * What an instance heard of the changes it has not applied yet (recent-changes.ts's announcementOf):
 * the changes announced with their sessions, by version, and whether a change of unknown version was
 * announced since the last read of the log (a reconnection: what changed meanwhile is only there).
 */
export class HeardChanges {
  readonly #changes = new Map<number, CatalogueDelta>();
  #readOwed = false;

  /**
   * Notes an announcement (undefined: of unknown version), keeping its change only when `keep`. One
   * that says only its version replaces whatever was heard of that version: the log says what it is.
   */
  hear(announced: Announcement | undefined, keep: boolean): void {
    if (!announced) this.#readOwed = true;
    else if (!keep || !announced.delta) this.#changes.delete(announced.version);
    else if (this.#changes.size < HEARD_MAX) this.#changes.set(announced.version, announced.delta);
  }

  /** Whether the next catch-up must read the log, whatever was heard. */
  get readOwed(): boolean {
    return this.#readOwed;
  }

  /** A read of the log begins: it will hold what was announced without a version. */
  reading(): void {
    this.#readOwed = false;
  }

  /** Forgets the changes of `version` and before (applied, or read from the log). */
  forgetUpTo(version: number): void {
    for (const v of this.#changes.keys()) if (v <= version) this.#changes.delete(v);
  }

  /** Forgets every change heard: the catalogue is rebuilt from a database that may be another one. */
  clear(): void {
    this.#changes.clear();
  }

  /**
   * The changes heard after `version`, one after the other, as one change (as the log's read of several
   * versions says them: each session as the last of them has it, in the place of its first change),
   * taken out of those heard; undefined when the next version was not heard. Under a stream of writes
   * several arrive during one catch-up: the next applies them at once, as it would have read them.
   */
  takeAfter(version: number): CatalogueDelta | undefined {
    let next = this.#changes.get(version + 1);
    if (!next) return undefined;
    let sessions: Map<string, SessionRecord | null> | undefined;
    for (let v = version + 2, later = this.#changes.get(v); later; later = this.#changes.get(++v)) {
      sessions ??= new Map(next.sessions);
      for (const [id, record] of later.sessions) sessions.set(id, record);
      this.#changes.delete(v - 1);
      next = { ...later, sessions };
    }
    this.#changes.delete(next.version);
    return next;
  }
}
