import { startInstant } from '../core/clock.js';
import { departmentByCode, METROPOLITAN_TIME_ZONE } from './geography.js';

/** A centre's prefectoral approval holds for 5 years from the day it was given (design.md §6). */
export const APPROVAL_YEARS = 5;

/** The first day the approval given on `approvedOn` (YYYY-MM-DD) no longer covers: 5 years on. */
export function approvalExpiresOn(approvedOn: string): string {
  const d = new Date(`${approvedOn}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + APPROVAL_YEARS);
  return d.toISOString().slice(0, 10);
}

/**
 * When the approval ends, in ms since the epoch: midnight starting its expiry day in the centre's
 * zone. Infinity for a centre with no approval date recorded (it is not judged on one).
 */
export function approvalEndsAt(approvedOn: string | null | undefined, timeZone: string): number {
  if (!approvedOn) return Number.POSITIVE_INFINITY;
  return startInstant(approvalExpiresOn(approvedOn), '00:00', timeZone);
}

/** Whether the centre's approval has ended at `nowMs`, judged in its department's zone. */
export function approvalEnded(centre: { approvedOn?: string | null; deptCode: string }, nowMs: number): boolean {
  const zone = departmentByCode(centre.deptCode)?.timeZone ?? METROPOLITAN_TIME_ZONE;
  return approvalEndsAt(centre.approvedOn, zone) <= nowMs;
}
