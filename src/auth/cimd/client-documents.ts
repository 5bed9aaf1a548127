import type { JSONWebKeySet } from 'jose';
import type { Clock } from '../../core/clock.js';
import { jwksRefusal } from '../client-keys.js';
import { invalidClientNoChallenge } from '../token-request.js';
import { clientIdUrlRefusal, clientUrlRefusal, type UrlAllowance } from './client-id-url.js';
import { DocumentCache } from './document-cache.js';
import { FetchRefused } from './fetch-json.js';
import { type DocumentClient, InvalidDocument, parseDocument } from './parse-document.js';

/** The CIMD draft's recommended most to read of a metadata document (§6.6: 5 kilobytes). */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
/** A key set holds up to 10 keys; RSA ones are about 700 bytes each. */
export const MAX_KEY_SET_BYTES = 16 * 1024;
/** What each cache may hold: about a thousand documents. */
export const DOCUMENT_CACHE_BYTES = 4 * 1024 * 1024;

export interface ClientDocumentsOptions extends UrlAllowance {
  fetchTimeoutMs: number;
  cacheMaxSeconds: number;
}

// Only what can sit in an OAuth error_description (RFC 6749 §5.2) is echoed.
const quotable = (url: string) => (/^[\x21\x23-\x5B\x5D-\x7E]{1,200}$/.test(url) ? ` ${url}` : '');

/**
 * Clients known by a URL (Client ID Metadata Documents) and the key sets private_key_jwt clients
 * publish at a jwks_uri: fetched with the bounded fetcher, validated, cached. Every failure is an
 * OAuth invalid_client whose description says what is wrong, for the client's developer to fix.
 */
export class ClientDocuments {
  readonly documents: DocumentCache<DocumentClient>;
  readonly keySets: DocumentCache<JSONWebKeySet>;

  /** `trustedCa`: see FetchOptions (tests only, through buildApp's deps). */
  constructor(
    private readonly options: ClientDocumentsOptions,
    clock: Clock,
    trustedCa?: string,
  ) {
    const cache = { maxCacheSeconds: options.cacheMaxSeconds, maxCacheBytes: DOCUMENT_CACHE_BYTES };
    const fetching = { allowHttpLoopback: options.allowHttpLoopback, timeoutMs: options.fetchTimeoutMs, trustedCa };
    this.documents = new DocumentCache({ ...fetching, ...cache, maxBytes: MAX_DOCUMENT_BYTES }, clock, (json, url) =>
      parseDocument(json, url, options),
    );
    this.keySets = new DocumentCache({ ...fetching, ...cache, maxBytes: MAX_KEY_SET_BYTES }, clock, (json) => {
      const refusal = jwksRefusal(json);
      if (refusal) throw new InvalidDocument(refusal.replace(/^jwks/, 'the key set'));
      return json as JSONWebKeySet;
    });
  }

  /** The client whose client_id is this URL, from its metadata document. */
  async client(clientId: string): Promise<DocumentClient> {
    const refusal = clientIdUrlRefusal(clientId, this.options);
    if (refusal) throw invalidClientNoChallenge(refusal);
    try {
      return (await this.documents.get(clientId)).value;
    } catch (err) {
      throw this.describe(err, `The client metadata document at the client_id URL${quotable(clientId)}`);
    }
  }

  /**
   * The key set published at a client's jwks_uri. `refetchAfterMs`: fetched again when the cached
   * copy is older (a new key the client has just published).
   */
  async keySet(jwksUri: string, refetchAfterMs?: number): Promise<{ keys: JSONWebKeySet; fetchedAt: number }> {
    const refusal = clientUrlRefusal(jwksUri, this.options, "The client's jwks_uri");
    if (refusal) throw invalidClientNoChallenge(refusal);
    try {
      const { value, fetchedAt } = await this.keySets.get(
        jwksUri,
        refetchAfterMs === undefined ? {} : { refetchAfterMs },
      );
      return { keys: value, fetchedAt };
    } catch (err) {
      throw this.describe(err, `The key set at the client's jwks_uri${quotable(jwksUri)}`);
    }
  }

  private describe(err: unknown, subject: string): unknown {
    if (err instanceof FetchRefused) return invalidClientNoChallenge(`${subject} ${err.message}.`);
    if (err instanceof InvalidDocument) return invalidClientNoChallenge(`${subject} is not usable: ${err.message}`);
    return err;
  }
}
