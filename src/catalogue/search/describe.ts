import { departmentByCode } from '../geography.js';
import type { CityMatcher, Origin } from '../locations.js';
import { formatPrice } from '../price.js';
import type { SearchQuery } from '../schemas.js';
import type { Sort } from './plan.js';

const DAY_NAMES_FR = ['dimanche', 'lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi'];

function frenchDate(day: string): string {
  return `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}`;
}

export interface Described {
  from: string;
  count: number;
  total: number;
  origin: Origin | undefined;
  radius: number;
  city: CityMatcher | undefined;
  sort: Sort;
  more: boolean;
}

/** The answer's description, in French: what was searched, how many match, how to go on. */
export function describe(query: SearchQuery, d: Described): string {
  const parts: string[] = [];
  parts.push(
    `${d.count} session${d.count === 1 ? '' : 's'} sur ${d.total} de stage de récupération de points (2 jours)` +
      (query.includeUnavailable ? ', complètes comprises' : ' avec des places disponibles'),
  );
  if (d.origin) parts.push(`à ${d.radius} km au plus de ${d.origin.label}`);
  if (query.dept) {
    const dept = departmentByCode(query.dept);
    parts.push(`dans le département ${query.dept}${dept ? ` (${dept.name})` : ''}`);
  }
  if (d.city) parts.push(`ville correspondant à « ${d.city.label} »`);
  if (query.region) parts.push(`région correspondant à « ${query.region} »`);
  parts.push(`à partir du ${frenchDate(d.from)}`);
  if (query.to) parts.push(`jusqu'au ${frenchDate(query.to)}`);
  if (query.maxPrice !== undefined) parts.push(`à ${formatPrice(query.maxPrice)} au plus`);
  if (query.days) parts.push(`ayant lieu un ${query.days.map((w) => DAY_NAMES_FR[w]).join(' ou un ')}`);
  const order =
    d.sort === 'price'
      ? 'triées par prix puis date'
      : d.sort === 'distance'
        ? 'triées par distance puis date'
        : 'triées par date, heure puis prix';
  const next = d.more ? ' Suite : la même recherche avec cursor=nextCursor.' : '';
  return `${parts.join(', ')}; au plus ${query.limit} par page, ${order}.${next} Réservation sur la page bookingUrl de chaque session.`;
}
