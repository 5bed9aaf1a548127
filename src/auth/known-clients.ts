import { LruCache, stringBytes } from '../core/lru-cache.js';
import type { Db } from '../db/connect.js';
import { isUrlClientId } from './cimd/client-id-url.js';
import { findClient } from './clients.js';

/** How long an answer about a client_id is reused: a removed client's tokens stop within this. */
export const KNOWN_CLIENT_TTL_MS = 60_000;
/** What the answers may hold: about 10,000 client ids (docs/operations.md, memory). */
export const KNOWN_CLIENTS_BYTES = 2 * 1024 * 1024;

/**
 * Whether a client_id is registered, asked of the database at most once a minute per client and
 * kept in memory meanwhile, so that checking every presented token stays a Map lookup on the hot
 * path. Concurrent first lookups of one client share a query.
 */
export class KnownClients {
  private readonly answers = new LruCache<string, { known: boolean; at: number }>(
    KNOWN_CLIENTS_BYTES,
    (clientId) => stringBytes(clientId) + 64,
  );
  private readonly pending = new Map<string, Promise<boolean>>();

  constructor(
    private readonly db: Db,
    private readonly onLookupError: (err: unknown) => void = () => {},
  ) {}

  /** The bytes the answers hold, as counted, and how many. */
  get held(): { bytes: number; clients: number } {
    return { bytes: this.answers.bytes, clients: this.answers.size };
  }

  /** Records a client registered by this instance, so that its first token needs no query. */
  remember(clientId: string): void {
    this.store(clientId, true);
  }

  /**
   * True when the client is registered. When the database cannot answer, a token whose signature
   * verified is given the benefit of the doubt (we issued it, to a client that existed then):
   * an outage must not log every agent out.
   *
   * A client known by a URL (a metadata document) has no row: its document was fetched and
   * checked when the token was issued, at most an access token's lifetime ago, and checking it
   * again here would put a fetch on every request's path.
   */
  async has(clientId: string): Promise<boolean> {
    if (isUrlClientId(clientId)) return true;
    const cached = this.answers.get(clientId);
    if (cached && performance.now() - cached.at < KNOWN_CLIENT_TTL_MS) return cached.known;
    let lookup = this.pending.get(clientId);
    if (!lookup) {
      lookup = findClient(this.db, clientId)
        .then((client) => {
          this.store(clientId, client !== undefined);
          return client !== undefined;
        })
        .catch((err: unknown) => {
          this.onLookupError(err);
          return cached?.known ?? true;
        })
        .finally(() => this.pending.delete(clientId));
      this.pending.set(clientId, lookup);
    }
    return lookup;
  }

  private store(clientId: string, known: boolean): void {
    this.answers.set(clientId, { known, at: performance.now() });
  }
}
