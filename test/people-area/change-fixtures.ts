import type { CentreRecord, SessionRecord } from '../../src/catalogue/read-model.js';
import type { CatalogueData } from '../../src/catalogue/repository.js';

/*
 * A small catalogue for the date change (the main fixtures put most centres on one spot): a centre
 * in Lyon, one in Villeurbanne 3 km away, one in Paris far away. "Now" is FIXTURE_NOW (4 March 2030).
 */

const centre = (n: number, fields: Partial<CentreRecord> & Pick<CentreRecord, 'name' | 'city' | 'lat' | 'lng'>) =>
  ({
    id: `20000000-0000-4000-8000-00000000000${n}`,
    slug: `change-centre-${n}`,
    address: `${n} place du Change`,
    postalCode: '69003',
    deptCode: '69',
    agrementNumber: `R23069000${n}0`,
    email: `centre${n}@example.test`,
    ...fields,
  }) satisfies CentreRecord;

export const CHANGE_CENTRES = {
  lyon: centre(1, { name: 'Centre Lyon Part-Dieu', city: 'Lyon', lat: 45.76, lng: 4.857 }),
  villeurbanne: centre(2, {
    name: 'Centre Villeurbanne',
    city: 'Villeurbanne',
    postalCode: '69100',
    lat: 45.771,
    lng: 4.89,
  }),
  paris: centre(3, {
    name: 'Centre Paris Bastille',
    city: 'Paris',
    postalCode: '75011',
    deptCode: '75',
    lat: 48.853,
    lng: 2.369,
  }),
};

let seq = 0;
const session = (c: CentreRecord, day1: string, spotsAvailable: number, priceCents = 23000): SessionRecord => {
  const next = new Date(`${day1}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return {
    id: `21000000-0000-4000-8000-0000000000${String(++seq).padStart(2, '0')}`,
    centreId: c.id,
    courseNumber: `${c.agrementNumber}-${day1.replaceAll('-', '')}`,
    day1,
    day2: next.toISOString().slice(0, 10),
    startTime: '08:30',
    endTime: '16:30',
    capacity: 20,
    priceCents,
    spotsAvailable,
  };
};

export const CHANGE_SESSIONS = {
  /** The one booked first: 20 March 2030, 08:30 in Lyon (07:30Z). */
  lyonMar20: session(CHANGE_CENTRES.lyon, '2030-03-20', 10),
  lyonApr3: session(CHANGE_CENTRES.lyon, '2030-04-03', 4, 21000),
  lyonApr10Full: session(CHANGE_CENTRES.lyon, '2030-04-10', 0),
  villeurbanneMar27: session(CHANGE_CENTRES.villeurbanne, '2030-03-27', 6, 19900),
  parisMar26: session(CHANGE_CENTRES.paris, '2030-03-26', 9),
};

export const CHANGE_CATALOGUE: CatalogueData = {
  centres: Object.values(CHANGE_CENTRES),
  sessions: Object.values(CHANGE_SESSIONS),
};
