import { hash } from 'node:crypto';
import { ByteSlab } from '../http/byte-slab.js';
import { type SessionEntry, sessionJson, sessionJsonLength, writeSessionJson } from './read-model.js';
import type { SearchResult } from './search.js';

const COMMA = 0x2c;
const DATA_OPEN = '","data":[';

/** A list answer's bytes, its `updatedAt` (an ISO instant) and where it sits in them, and its weak ETag. */
export interface ListBody {
  readonly bytes: Buffer;
  readonly iso: string;
  readonly isoAt: number;
  /** Of the answer but its `updatedAt`: the same sessions and description (RFC 9110 §8.8.1). */
  readonly etag: string;
}

/**
 * Writes list answers: owned by the app's stages route, with the slab their bytes are cut from and
 * each session's digest for ETags (its JSON never changes once built, so it is made once; kept
 * here rather than on the immutable entry, and let go with the entry).
 */
export class ListBodies {
  readonly #slab = new ByteSlab();
  readonly #digests = new WeakMap<SessionEntry, string>();

  #digestOf(e: SessionEntry): string {
    let digest = this.#digests.get(e);
    if (digest === undefined) {
      digest = hash('sha1', sessionJson(e), 'base64url').slice(0, 16);
      this.#digests.set(e, digest);
    }
    return digest;
  }

  /**
   * Serialises a search result into one buffer, copying each session's prebuilt JSON bytes once
   * (with `near`, its distanceKm goes last, inside the session's object). The ETag hashes what the
   * answer says but its `updatedAt`: the head, each session's digest (computed once per session's
   * JSON), each distance and the tail — about 600 characters rather than the 6 KB of a typical answer.
   */
  write(result: SearchResult, platform: string, updatedAtIso: string): ListBody {
    const head = `{"object":"list","count":${result.entries.length},"total":${result.total},"description":${JSON.stringify(result.description)},"platform":${JSON.stringify(platform)},"updatedAt":"`;
    const tail = result.nextCursor ? `],"nextCursor":"${result.nextCursor}"}` : ']}';
    const { entries, distances } = result;
    // ,"distanceKm":12.3} in place of each session's closing brace
    const extras = distances?.map((km) => `,"distanceKm":${km}}`);
    let said = head + tail;
    const headLength = Buffer.byteLength(head);
    let size = headLength + updatedAtIso.length + DATA_OPEN.length + tail.length + Math.max(0, entries.length - 1);
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i] as SessionEntry;
      said += this.#digestOf(e);
      size += sessionJsonLength(e);
      const extra = extras?.[i];
      if (extra !== undefined) {
        said += extra;
        size += extra.length - 1;
      }
    }
    const bytes = this.#slab.take(size);
    let at = headLength === head.length ? bytes.write(head, 0, 'latin1') : bytes.write(head, 0);
    const isoAt = at;
    at += bytes.write(updatedAtIso, at, 'latin1');
    at += bytes.write(DATA_OPEN, at, 'latin1');
    for (let i = 0; i < entries.length; i++) {
      if (i > 0) bytes[at++] = COMMA;
      at = writeSessionJson(entries[i] as SessionEntry, bytes, at);
      const extra = extras?.[i];
      // Over the session's closing brace.
      if (extra !== undefined) at += bytes.write(extra, at - 1, 'latin1') - 1;
    }
    at += bytes.write(tail, at, 'latin1');
    // Every byte of a slab's slice must be written: it may hold an earlier answer.
    if (at !== size) throw new Error(`list answer of ${at} bytes where ${size} were counted`);
    return { bytes, iso: updatedAtIso, isoAt, etag: `W/"${hash('sha1', said, 'base64url').slice(0, 22)}"` };
  }
}

/** The same answer with another `updatedAt`, in a new buffer (the old one may still be on its way out). */
export function withUpdatedAt(body: ListBody, updatedAtIso: string): ListBody {
  const { bytes, iso, isoAt } = body;
  const before = bytes.subarray(0, isoAt);
  const after = bytes.subarray(isoAt + iso.length);
  return {
    bytes: Buffer.concat([before, Buffer.from(updatedAtIso, 'latin1'), after]),
    iso: updatedAtIso,
    isoAt,
    etag: body.etag,
  };
}
