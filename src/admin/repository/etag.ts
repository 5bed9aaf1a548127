import { createHash } from 'node:crypto';
import { WriteRefused } from '../../db/write-refused.js';
import type { AdminCentre, AdminSession } from '../response-schemas.js';

/** A strong validator of a stored record: any change (updatedAt included) changes it. */
export function etagOf(record: AdminSession | AdminCentre): string {
  return `"${createHash('sha256').update(JSON.stringify(record)).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 §13.1.1: If-Match lists strong validators, or is `*`. */
export function matches(ifMatch: string | undefined, current: string | undefined): boolean {
  if (ifMatch === undefined) return true;
  if (ifMatch.trim() === '*') return current !== undefined;
  if (current === undefined) return false;
  return ifMatch.split(',').some((tag) => tag.trim() === current);
}

export function preconditionFailed(): WriteRefused {
  return new WriteRefused(
    412,
    'precondition_failed',
    'The record changed since you read it (If-Match does not match its ETag). Read it again, then retry.',
  );
}
