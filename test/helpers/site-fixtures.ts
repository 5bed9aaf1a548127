import type { CentreRecord, SessionRecord } from '../../src/catalogue/read-model.js';
import type { CatalogueData } from '../../src/catalogue/repository.js';
import { CENTRES, FIXTURE_CATALOGUE } from './fixtures.js';

/** Catalogue content written by someone hostile: every field a page shows. */
export const HOSTILE_NAME = '<script>alert("nom")</script></script><!--';
export const HOSTILE_CENTRE: CentreRecord = {
  id: '00000000-0000-4000-8000-0000000000ee',
  slug: 'centre-hostile',
  name: HOSTILE_NAME,
  address: '"><img src=x onerror=alert(1)> 7 rue & Cie',
  city: 'Villeurbanne</title><script>alert(2)</script>',
  postalCode: '69100',
  deptCode: '69',
  lat: 45.77,
  lng: 4.88,
  agrementNumber: 'R2306900009',
};

let n = 0;
function session(day1: string, fields: Partial<SessionRecord> = {}): SessionRecord {
  const d = new Date(`${day1}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  n++;
  return {
    id: `20000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    centreId: HOSTILE_CENTRE.id,
    courseNumber: `<i>X-${n}</i>`,
    day1,
    day2: d.toISOString().slice(0, 10),
    startTime: '08:30',
    endTime: '16:30',
    priceCents: 20000 + n * 100,
    capacity: 20,
    spotsAvailable: 10,
    ...fields,
  };
}

/** 25 sessions at the hostile centre from 7 to 31 March 2030 (more than a page), and one in summer time. */
export const HOSTILE_SESSIONS: SessionRecord[] = Array.from({ length: 25 }, (_, i) =>
  session(`2030-03-${String(7 + i).padStart(2, '0')}`),
);
export const SUMMER_SESSION = session('2030-07-08', { startTime: '09:00', endTime: '17:00' });

export const SITE_CATALOGUE: CatalogueData = {
  centres: [...FIXTURE_CATALOGUE.centres, HOSTILE_CENTRE],
  sessions: [...FIXTURE_CATALOGUE.sessions, ...HOSTILE_SESSIONS, SUMMER_SESSION],
};

export { CENTRES };

/** Every JSON-LD block of a page, parsed. */
export function jsonLdBlocks(html: string): Record<string, unknown>[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map(
    (m) => JSON.parse(m[1] as string) as Record<string, unknown>,
  );
}
