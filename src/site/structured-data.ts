import type { CentreEntry, SessionEntry } from '../catalogue/read-model.js';
import { LruCache } from '../core/lru-cache.js';
import { isoLocal } from '../web/format.js';
import { keepsMarkup } from '../web/kept-markup.js';
import { JsonLdText, jsonLdText } from '../web/render.js';

/*
 * schema.org descriptions of the pages, for search engines and agents reading the HTML.
 * Dates carry the UTC offset of the centre's zone on that day.
 */

export type { SessionStatus } from '../catalogue/session-status.js';

function availability(spots: number): string {
  if (spots <= 0) return 'https://schema.org/SoldOut';
  if (spots <= 5) return 'https://schema.org/LimitedAvailability';
  return 'https://schema.org/InStock';
}

function place(centre: CentreEntry) {
  const c = centre.view;
  return {
    '@type': 'Place',
    name: c.name,
    address: {
      '@type': 'PostalAddress',
      streetAddress: c.address,
      addressLocality: c.city,
      postalCode: c.postalCode,
      addressRegion: c.region,
      addressCountry: 'FR',
    },
    geo: { '@type': 'GeoCoordinates', latitude: c.lat, longitude: c.lng },
  };
}

export function sessionJsonLd(entry: SessionEntry, pageUrl: string) {
  const s = entry.view;
  const c = s.centre;
  const zone = entry.centre.timeZone;
  return {
    '@context': 'https://schema.org',
    '@type': 'EducationEvent',
    name: `Stage de récupération de points à ${c.city}`,
    description: `Stage de sensibilisation à la sécurité routière de deux jours (14 heures) permettant de récupérer jusqu’à 4 points, au centre agréé ${c.name} (agrément ${c.agrementNumber}).`,
    url: pageUrl,
    identifier: entry.record.courseNumber,
    inLanguage: 'fr',
    startDate: isoLocal(s.day1, s.startTime, zone),
    endDate: isoLocal(s.day2, s.endTime, zone),
    eventStatus: entry.cancelled ? 'https://schema.org/EventCancelled' : 'https://schema.org/EventScheduled',
    eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
    location: place(entry.centre),
    organizer: { '@type': 'Organization', name: c.name, url: c.url },
    maximumAttendeeCapacity: entry.record.capacity,
    remainingAttendeeCapacity: s.spotsAvailable,
    offers: {
      '@type': 'Offer',
      price: s.priceEuros,
      priceCurrency: 'EUR',
      availability: entry.cancelled ? 'https://schema.org/Discontinued' : availability(s.spotsAvailable),
      url: pageUrl,
    },
  };
}

// A session page's JSON-LD, kept per entry (a changed session is a new entry): its two dates'
// offsets cost a look-up of the zone's rules each, ~2 KB a session.
const keptSessionJsonLd = new LruCache<SessionEntry, { pageUrl: string; json: JsonLdText }>(
  1024 * 1024,
  (_entry, kept) => kept.json.size,
);

/** sessionJsonLd as its page inserts it, made once per entry. */
export function sessionJsonLdText(entry: SessionEntry, pageUrl: string): JsonLdText {
  if (!keepsMarkup()) return new JsonLdText(jsonLdText(sessionJsonLd(entry, pageUrl)));
  const kept = keptSessionJsonLd.get(entry);
  if (kept !== undefined && kept.pageUrl === pageUrl) return kept.json;
  const json = new JsonLdText(jsonLdText(sessionJsonLd(entry, pageUrl)));
  void json.bytes; // made now, counted in the budget
  keptSessionJsonLd.set(entry, { pageUrl, json });
  return json;
}

export function centreJsonLd(centre: CentreEntry, pageUrl: string) {
  const c = centre.view;
  return {
    '@context': 'https://schema.org',
    ...place(centre),
    '@type': 'LocalBusiness',
    url: pageUrl,
    identifier: c.agrementNumber,
    description: `Centre agréé par la préfecture (agrément ${c.agrementNumber}) pour les stages de récupération de points.`,
  };
}
