import { newSecret } from '../core/secrets.js';

/** Active holds one person may have at once, all agents together (issue 26: agents must not empty sessions). */
export const MAX_ACTIVE_HOLDS = 3;

export { completePath, HOLD_ID } from '../reservations/repository/held-place.js';

/** A new hold id (see HOLD_ID). */
export function newHoldId(): string {
  return `hld_${newSecret(16)}`;
}

/** An agent's idempotency key: what it sends again to get the same hold back. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,100}$/;

/** The job that gives an expired hold's place back (src/agent-holds/expiry.ts). */
export const HOLD_EXPIRY_JOB = 'hold.expire';
