import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../../src/admin/api-keys.js';

/** An operator key and a partner key (for `centreId`) created in the app's database. */
export async function keysFor(app: FastifyInstance, centreId: string) {
  const admin = await createApiKey(app.database.db, { name: 'ops', role: 'admin', centreId: null });
  const partner = await createApiKey(app.database.db, { name: 'centre lyon', role: 'partner', centreId });
  return {
    admin: { authorization: `Bearer ${admin.key}` },
    partner: { authorization: `Bearer ${partner.key}` },
    adminId: admin.identity.id,
    partnerId: partner.identity.id,
  };
}

/** A valid new centre in the Rhône (Villeurbanne). */
export const NEW_CENTRE = {
  slug: 'route-sereine-villeurbanne',
  name: 'Route Sereine Villeurbanne',
  address: '12 rue Francis de Pressensé',
  city: 'Villeurbanne',
  postalCode: '69100',
  deptCode: '69',
  lat: 45.7719,
  lng: 4.8902,
  agrementNumber: 'R2406900123',
  email: 'contact@route-sereine.example',
  phone: '04 72 00 00 00',
};

/** A valid session body for `centreId` (a Tuesday–Wednesday in March 2030). */
export function newSession(centreId: string, fields: Record<string, unknown> = {}) {
  return {
    centreId,
    courseNumber: 'R2406900123-20300319',
    day1: '2030-03-19',
    startTime: '08:30',
    endTime: '16:30',
    priceEuros: 229.5,
    capacity: 20,
    spotsAvailable: 12,
    ...fields,
  };
}
