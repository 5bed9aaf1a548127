import type { CentreRecord, SessionRecord } from '../../src/catalogue/read-model.js';
import type { CatalogueData } from '../../src/catalogue/repository.js';

/** Fixed "now" for fixture tests: Monday 4 March 2030, 10:00 in Paris. */
export const FIXTURE_NOW = '2030-03-04T09:00:00Z';
export const FIXTURE_TODAY = '2030-03-04';

let seq = 0;
const uuid = (prefix: string) => `${prefix}-0000-4000-8000-${String(++seq).padStart(12, '0')}`;

function centre(id: string, fields: Omit<CentreRecord, 'id' | 'lat' | 'lng'> & Partial<CentreRecord>): CentreRecord {
  return { id, lat: 45, lng: 4, ...fields };
}

export const CENTRES = {
  lyon: centre('00000000-0000-4000-8000-000000000001', {
    slug: 'centre-lyon',
    name: 'Centre Lyon',
    address: '1 rue A',
    city: 'Lyon',
    postalCode: '69003',
    deptCode: '69',
    agrementNumber: 'R2306900001',
  }),
  stEtienne: centre('00000000-0000-4000-8000-000000000002', {
    slug: 'centre-saint-etienne',
    name: 'Centre Saint-Étienne',
    address: '2 rue B',
    city: 'Saint-Étienne',
    postalCode: '42000',
    deptCode: '42',
    agrementNumber: 'R2304200002',
  }),
  paris: centre('00000000-0000-4000-8000-000000000003', {
    slug: 'centre-paris',
    name: 'Centre Paris',
    address: '3 rue C',
    city: 'Paris',
    postalCode: '75011',
    deptCode: '75',
    agrementNumber: 'R2407500003',
    lat: 48.85,
    lng: 2.35,
  }),
  ajaccio: centre('00000000-0000-4000-8000-000000000004', {
    slug: 'centre-ajaccio',
    name: 'Centre Ajaccio',
    address: '4 rue D',
    city: 'Ajaccio',
    postalCode: '20000',
    deptCode: '2A',
    agrementNumber: 'R2502A00004',
  }),
  bourg: centre('00000000-0000-4000-8000-000000000005', {
    slug: 'centre-bourg',
    name: 'Centre Bourg-en-Bresse',
    address: '5 rue E',
    city: 'Bourg-en-Bresse',
    postalCode: '01000',
    deptCode: '01',
    agrementNumber: 'R2600100005',
  }),
  reunion: centre('00000000-0000-4000-8000-000000000006', {
    slug: 'centre-saint-denis-reunion',
    name: 'Centre Saint-Denis',
    address: '6 rue F',
    city: 'Saint-Denis',
    postalCode: '97400',
    deptCode: '974',
    agrementNumber: 'R2297400006',
    lat: -20.88,
    lng: 55.45,
  }),
};

function session(
  centre: CentreRecord,
  day1: string,
  fields: Partial<SessionRecord> & { priceCents: number; spotsAvailable: number },
): SessionRecord {
  const next = new Date(`${day1}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return {
    id: uuid('10000000'),
    centreId: centre.id,
    courseNumber: `${centre.agrementNumber}-${day1.replaceAll('-', '')}`,
    day1,
    day2: next.toISOString().slice(0, 10),
    startTime: '08:30',
    endTime: '16:30',
    capacity: 20,
    ...fields,
  };
}

export const SESSIONS = {
  lyonPast: session(CENTRES.lyon, '2030-02-25', { priceCents: 22000, spotsAvailable: 5 }),
  lyonMar5: session(CENTRES.lyon, '2030-03-05', { priceCents: 23900, spotsAvailable: 3 }),
  lyonMar5Early: session(CENTRES.lyon, '2030-03-05', {
    priceCents: 25000,
    spotsAvailable: 8,
    startTime: '08:00',
    endTime: '16:00',
    courseNumber: 'X-1',
  }),
  stEtienneMar5: session(CENTRES.stEtienne, '2030-03-05', { priceCents: 19900, spotsAvailable: 12 }),
  parisMar6Full: session(CENTRES.paris, '2030-03-06', { priceCents: 29900, spotsAvailable: 0 }),
  parisMar12: session(CENTRES.paris, '2030-03-12', { priceCents: 27950, spotsAvailable: 1 }),
  ajaccioMar13: session(CENTRES.ajaccio, '2030-03-13', { priceCents: 24000, spotsAvailable: 10 }),
  bourgMar14: session(CENTRES.bourg, '2030-03-14', { priceCents: 9900, spotsAvailable: 20 }),
  reunionMar19: session(CENTRES.reunion, '2030-03-19', { priceCents: 23000, spotsAvailable: 6 }),
  lyonApr2Full: session(CENTRES.lyon, '2030-04-02', { priceCents: 22999, spotsAvailable: 0 }),
};

export const FIXTURE_CATALOGUE: CatalogueData = {
  centres: Object.values(CENTRES),
  sessions: Object.values(SESSIONS),
};
