import { hash } from 'node:crypto';
import { type Origin, SearchArgumentError } from '../locations.js';
import type { SearchQuery } from '../schemas.js';
import type { Sort } from './plan.js';

/** Where a page ends: the sort key of its last session. */
export interface PageKey {
  day1: string;
  startTime: string;
  priceCents: number;
  id: string;
  /** Distance sort: metres from the place. */
  metres: number;
}

/**
 * The filters of a search, minus limit and cursor: a cursor continues only the search it came from.
 * Needed only to read a cursor or to write one, so made on first use.
 */
export class SearchFilters {
  #filters: unknown[] | undefined;
  #print: string | undefined;

  constructor(
    private readonly query: SearchQuery,
    private readonly origin: Origin | undefined,
    private readonly radius: number,
    private readonly sort: Sort,
  ) {}

  get filters(): readonly unknown[] {
    const { query, origin } = this;
    this.#filters ??= [
      query.city ?? '',
      query.dept ?? '',
      query.region ?? '',
      query.from ?? '',
      query.to ?? '',
      query.maxPrice ?? '',
      query.includeUnavailable,
      origin?.key ?? '',
      origin ? this.radius : '',
      query.days?.join('') ?? '',
      this.sort,
    ];
    return this.#filters;
  }

  /** The fingerprint a version 2 cursor carries. */
  get print(): string {
    this.#print ??= fingerprint(this.filters);
    return this.#print;
  }
}

/**
 * A cursor's fingerprint of the filters: a 64-bit hash of their JSON (an FNV-1a lane and a second
 * lane with an extra shift), in hex. It only tells searches apart — a clash would continue another
 * search's order, nothing more — so it needs no cryptographic hash: SHA-1 cost a microsecond a page.
 */
function fingerprint(filters: readonly unknown[]): string {
  const text = JSON.stringify(filters);
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** Version 1 cursors (until November 2026) carried a SHA-1 print: still read, so that paging survives an upgrade. */
function fingerprintV1(filters: readonly unknown[]): string {
  return hash('sha1', JSON.stringify(filters), 'base64url').slice(0, 12);
}

// 2.<print>.<day1>.<startTime>.<cents>.<id>.<metres>: none of the stored texts holds a dot.
const CURSOR_V2 = /^2\.([0-9a-f]{16})\.([^.]{1,40})\.([^.]{1,40})\.(-?\d{1,15})\.([^.]{1,100})\.(-?\d{1,15})$/;

export function encodeCursor(print: string, k: PageKey): string {
  return Buffer.from(`2.${print}.${k.day1}.${k.startTime}.${k.priceCents}.${k.id}.${k.metres}`, 'latin1').toString(
    'base64url',
  );
}

/** A cursor's page key, when the cursor belongs to the search whose filters are `filters`. */
export function decodeCursor(cursor: string, filters: SearchFilters): PageKey {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  let key: (PageKey & { print: string }) | undefined;
  let expected: () => string = () => filters.print;
  const v2 = CURSOR_V2.exec(text);
  if (v2) {
    const [, p, day1, startTime, priceCents, id, metres] = v2 as unknown as string[];
    key = {
      print: p as string,
      day1: day1 as string,
      startTime: startTime as string,
      priceCents: Number(priceCents),
      id: id as string,
      metres: Number(metres),
    };
  } else {
    key = decodeCursorV1(text);
    expected = () => fingerprintV1(filters.filters);
  }
  if (!key) {
    throw new SearchArgumentError(
      'cursor',
      'not a cursor of this service (altered or cut short?): pass nextCursor exactly as received, or start again without cursor',
    );
  }
  if (key.print !== expected()) {
    throw new SearchArgumentError(
      'cursor',
      'this cursor belongs to another search: send it with the same filters as the page it came from (only limit may change), or start again without cursor',
    );
  }
  return { day1: key.day1, startTime: key.startTime, priceCents: key.priceCents, id: key.id, metres: key.metres };
}

function decodeCursorV1(text: string): (PageKey & { print: string }) | undefined {
  let parts: unknown;
  try {
    parts = JSON.parse(text);
  } catch {
    return undefined;
  }
  const [v, p, day1, startTime, priceCents, id, metres] = Array.isArray(parts) ? parts : [];
  if (
    v !== 1 ||
    typeof p !== 'string' ||
    typeof day1 !== 'string' ||
    typeof startTime !== 'string' ||
    !Number.isSafeInteger(priceCents) ||
    typeof id !== 'string' ||
    !Number.isSafeInteger(metres)
  )
    return undefined;
  return { print: p, day1, startTime, priceCents: priceCents as number, id, metres: metres as number };
}
