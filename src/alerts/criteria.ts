import { z } from 'zod';
import { searchFields, toNotBeforeFrom } from '../catalogue/schemas.js';
import { UUID } from '../core/uuid.js';

/**
 * What a search alert watches: the catalogue's own search filters (a town or department, or
 * `near` a place or "lat,lng" within `radiusKm`; first days from/to; a maximum price), so that
 * matching runs the catalogue's search itself (src/catalogue/search.ts) and means what the
 * person's search meant.
 */
export const searchCriteria = z
  .object({
    city: searchFields.city,
    dept: searchFields.dept,
    near: searchFields.near,
    radiusKm: searchFields.radiusKm,
    from: searchFields.from,
    to: searchFields.to,
    maxPrice: searchFields.maxPrice,
  })
  .strict()
  .superRefine((q, ctx) => {
    if (!q.city && !q.dept && !q.near)
      ctx.addIssue({ code: 'custom', path: ['city'], message: 'a search alert needs a place: city, dept or near' });
    if (q.radiusKm !== undefined && !q.near)
      ctx.addIssue({ code: 'custom', path: ['radiusKm'], message: 'radiusKm needs near' });
    if (!toNotBeforeFrom(q)) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must not be before from' });
  });

export type SearchCriteria = z.output<typeof searchCriteria>;

/** An alert's criteria: one session (a full one, to hear when a place frees up), or a search. */
export const alertCriteria = z.union([
  z.object({ sessionId: z.string().regex(UUID) }).strict(),
  z.object({ search: searchCriteria }).strict(),
]);

export type AlertCriteria = z.output<typeof alertCriteria>;

/**
 * Who made an alert: the site's form, or an agent's OAuth client acting for a person under the
 * claim they approved (src/agent-alerts/: the agent sees only its claim's alerts).
 */
export type AlertCreator = { via: 'site' } | { via: 'agent'; clientId: string; claimId: string };
