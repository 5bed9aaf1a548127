import { DomainError } from '../core/errors.js';

/**
 * A catalogue write the data refuses: a unique value another record holds, places reservations
 * hold, a stale If-Match, a centre out of the caller's scope. The one error handler answers it.
 */
export class WriteRefused extends DomainError {}
