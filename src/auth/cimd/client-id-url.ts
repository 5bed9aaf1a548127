import { isIP } from 'node:net';
import { isLoopbackAddress, isPublicAddress } from '../../webhooks/address-check.js';

/** Longest URL accepted as a client_id or a jwks_uri. */
export const MAX_CLIENT_URL_LENGTH = 512;

/**
 * Whether a client_id is a Client Identifier URL (draft-ietf-oauth-client-id-metadata-document
 * §3) rather than one this server issued: ours are `cl_…` (secrets.ts) and never start with a
 * scheme, so the two cannot be confused.
 */
export function isUrlClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** What a test configuration may allow: http, from a loopback address only. */
export interface UrlAllowance {
  allowHttpLoopback: boolean;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a URL this server is asked to fetch (a client_id, a jwks_uri) is refused before any
 * request, or undefined. https only (http for a loopback host when the test allowance is on);
 * no user name or password, fragment, or dot segments; a path (a client_id's must not be `/`).
 * A literal address must be public; a name is checked when it is resolved (guardedLookup).
 */
export function clientUrlRefusal(raw: string, allowance: UrlAllowance, what: string): string | undefined {
  if (raw.length > MAX_CLIENT_URL_LENGTH) return `${what} must be at most ${MAX_CLIENT_URL_LENGTH} characters.`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${what} is not a valid URL.`;
  }
  const loopbackHost = LOOPBACK_NAMES.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowance.allowHttpLoopback && loopbackHost))
    return `${what} must be an https URL.`;
  if (url.username || url.password) return `${what} must not contain a user name or password.`;
  if (raw.includes('#')) return `${what} must not contain a fragment.`;
  const path = raw.replace(/^[a-z]+:\/\/[^/?#]*/i, '').split(/[?#]/)[0] ?? '';
  if (path.split('/').some((segment) => segment === '.' || segment === '..' || /^%2e%2e?$|^\.%2e$/i.test(segment)))
    return `${what} must not contain . or .. path segments.`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !isPublicAddress(host) && !(allowance.allowHttpLoopback && isLoopbackAddress(host)))
    return `${what} must be on the public internet, not a private, loopback or link-local address.`;
  return undefined;
}

/** A client_id URL's own rules on top of clientUrlRefusal: a path other than `/`. */
export function clientIdUrlRefusal(clientId: string, allowance: UrlAllowance): string | undefined {
  const refusal = clientUrlRefusal(clientId, allowance, 'A URL client_id');
  if (refusal) return refusal;
  const url = new URL(clientId);
  if (url.pathname === '/' || url.pathname === '')
    return 'A URL client_id must have a path (e.g. https://app.example/oauth/client.json).';
  return undefined;
}

/** Which resolved addresses a fetch may connect to under this allowance. */
export function allowedAddress(allowance: UrlAllowance): (address: string) => boolean {
  return allowance.allowHttpLoopback
    ? (address) => isPublicAddress(address) || isLoopbackAddress(address)
    : isPublicAddress;
}
