import type { SearchScope } from '../catalogue/search.js';

/**
 * A kept MCP answer (fast-path.ts): its bytes around the JSON-RPC id, with what it drew on and where
 * it carries the catalogue's `updatedAt`, so that a change elsewhere gives it the new one in place.
 */
export interface Template {
  status: number;
  headers: Readonly<Record<string, string>>;
  prefix: Buffer;
  suffix: Buffer;
  bytes: number;
  /** The catalogue version it was computed at, and what it drew on ('all': whatever changes drops it). */
  version: number;
  scope: SearchScope;
  /** The catalogue's `updatedAt` it carries, and where in `prefix` (none when it carries none). */
  iso: string;
  isoAt: readonly number[];
}

/** Where `iso` (an instant, 24 characters) is written in `bytes`. */
export function offsetsOf(bytes: Buffer, iso: string): number[] {
  const at: number[] = [];
  for (let i = bytes.indexOf(iso, 0, 'latin1'); i !== -1; i = bytes.indexOf(iso, i + iso.length, 'latin1')) at.push(i);
  return at;
}

/**
 * The same template with another `updatedAt`, in a new buffer (the old one may be being copied
 * from); undefined if it does not fit in the old one's place (toISOString always writes 24
 * characters from year 0 to 9999).
 */
export function withUpdatedAt(entry: Template, iso: string): Template | undefined {
  if (iso.length !== entry.iso.length) return undefined;
  const prefix = Buffer.from(entry.prefix);
  for (const at of entry.isoAt) prefix.write(iso, at, 'latin1');
  return { ...entry, prefix, iso };
}

/**
 * Splits a JSON-RPC answer around its top-level id: the SDK writes `{"result":…,"jsonrpc":"2.0","id":…}`.
 * Undefined when the body is not a successful, non-isError result for that id in that shape.
 */
export function splitAtId(body: string, id: string | number): { prefix: Buffer; suffix: Buffer } | undefined {
  const tail = `,"id":${JSON.stringify(id)}}`;
  if (!body.endsWith(tail)) return undefined;
  let parsed: { result?: { isError?: unknown }; id?: unknown; error?: unknown };
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (parsed.id !== id || typeof parsed.result !== 'object' || parsed.result === null) return undefined;
  if (parsed.result.isError === true || 'error' in parsed) return undefined;
  const keys = Object.keys(parsed);
  if (keys[keys.length - 1] !== 'id') return undefined;
  return {
    prefix: Buffer.from(body.slice(0, body.length - tail.length + ',"id":'.length)),
    suffix: Buffer.from('}'),
  };
}
