/** A code lives this long (RFC 6749 §4.1.2: "a maximum authorization code lifetime of 10 minutes is RECOMMENDED"; a host redeems it at once). */
export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 60;
/** The person has this long to sign in and answer: the sign-in link's own lifetime. */
export const AUTHORIZATION_REQUEST_LIFETIME_SECONDS = 900;
/** Longest `state` kept and given back. */
export const MAX_STATE_LENGTH = 1000;

/** The page where the person answers an agent host's request. */
export const CONSENT_PAGE_PATH = '/agents/connecter';
/** An authorization request's id: 128 random bits, base64url. */
export const REQUEST_ID = /^[A-Za-z0-9_-]{22}$/;

export function consentPagePath(requestId: string): string {
  return `${CONSENT_PAGE_PATH}?demande=${requestId}`;
}
