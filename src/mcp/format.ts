import { formatPrice } from '../catalogue/price.js';
import type { StageSession } from '../catalogue/schemas.js';

/** One line per session, for the text block of a tool result. */
export function sessionLine(s: Omit<StageSession, 'centre'> & { centre?: StageSession['centre'] }): string {
  const distance = s.distanceKm === undefined ? '' : ` · ${String(s.distanceKm).replace('.', ',')} km`;
  const where = s.centre
    ? ` · ${s.centre.name}, ${s.centre.address}, ${s.centre.postalCode} ${s.centre.city} (${s.centre.deptCode})${distance}`
    : distance;
  const places = s.spotsAvailable === 0 ? 'full' : `${s.spotsAvailable} place${s.spotsAvailable === 1 ? '' : 's'} left`;
  return `- ${s.day1} and ${s.day2}, ${s.startTime}–${s.endTime}${where} · ${formatPrice(s.priceEuros)} · ${places} · id ${s.id} · book: ${s.bookingUrl}`;
}
