import { formatPrice } from '../catalogue/price.js';
import type { SessionEntry } from '../catalogue/read-model.js';
import { RADIUS_DEFAULT_KM } from '../catalogue/schemas.js';
import { frenchDate } from '../web/format.js';
import type { SearchCriteria } from './criteria.js';

/** A session alert's session, in words: "le stage des lundi 5 et mardi 6 mars 2030 à Lyon (Centre Lyon)". */
export function sessionInWords(entry: SessionEntry): string {
  const s = entry.view;
  return `le stage des ${frenchDate(s.day1)} et ${frenchDate(s.day2)} à ${s.centre.city} (${s.centre.name})`;
}

/** A search alert's criteria, in words: "à Lyon, du 5 mars 2030 au 30 avril 2030, à 250 € au plus". */
export function searchInWords(q: SearchCriteria): string {
  const parts: string[] = [];
  if (q.near) parts.push(`à moins de ${q.radiusKm ?? RADIUS_DEFAULT_KM} km de ${q.near}`);
  else if (q.city) parts.push(`à ${q.city}`);
  if (q.dept) parts.push(`dans le département ${q.dept}`);
  if (q.from && q.to) parts.push(`du ${frenchDate(q.from)} au ${frenchDate(q.to)}`);
  else if (q.from) parts.push(`à partir du ${frenchDate(q.from)}`);
  else if (q.to) parts.push(`jusqu’au ${frenchDate(q.to)}`);
  if (q.maxPrice !== undefined) parts.push(`à ${formatPrice(q.maxPrice)} au plus`);
  return parts.join(', ');
}
