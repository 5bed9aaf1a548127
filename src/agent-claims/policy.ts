/** A claim waits this long for the person (RFC 8628's expires_in). */
export const CLAIM_LIFETIME_SECONDS = 600;
/** The client polls the claim's state at most this often (RFC 8628's interval). */
export const CLAIM_POLL_INTERVAL_SECONDS = 5;
/** Wrong user codes typed for one claim before it is refused for good. */
export const MAX_WRONG_CODES = 5;

/** The claim's page for the person. */
export const CLAIM_PAGE_PATH = '/agents/autoriser';
/** The people's area's list of the agents they let act for them. */
export const PERSON_AGENTS_PATH = '/mon-espace/agents';

/** A claim id: 128 random bits, base64url. */
export const CLAIM_ID = /^[A-Za-z0-9_-]{22}$/;

export function claimPagePath(claimId: string): string {
  return `${CLAIM_PAGE_PATH}?claim=${claimId}`;
}

/** The title of the people's area's page of agents, and of the link to it. */
export const PEOPLE_AGENTS_LINK_TEXT = 'Assistants autorisés à agir pour vous';
