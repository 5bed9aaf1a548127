import { type SQL, sql } from 'drizzle-orm';
import { METROPOLITAN_TIME_ZONE, OVERSEAS_TIME_ZONES } from '../../catalogue/geography.js';
import { centres, stageSessions } from '../../db/schema.js';

/** The zone of a session's centre, from its department: the catalogue's own table (geography.ts). */
const centreZone: SQL = sql`(select case ${centres.deptCode} ${sql.join(
  Object.entries(OVERSEAS_TIME_ZONES).map(([code, zone]) => sql`when ${code}::text then ${zone}::text`),
  sql` `,
)} else ${METROPOLITAN_TIME_ZONE}::text end from ${centres} where ${centres.id} = ${stageSessions.centreId})`;

/**
 * When a session begins, as the database computes it from the row it holds: day1 at start_time
 * (HH:MM) in its centre's zone, from the row being booked (a session rescheduled since the last
 * catalogue refresh is judged by its real time). The read model computes the same instant
 * (core/clock.ts startInstant, summer-time nights included).
 */
export const sessionStart: SQL = sql`((${stageSessions.day1} + ${stageSessions.startTime}::interval) at time zone ${centreZone})`;

/**
 * Whether the session's centre may take bookings at `now`: not suspended, and its approval (5 years
 * from approved_on) not ended on its zone's date; the database's own reading of the row, so that a
 * booking sent before this instance's catalogue heard of a suspension is refused all the same.
 */
export function centreOpen(now: Date): SQL {
  return sql`exists (select 1 from ${centres} where ${centres.id} = ${stageSessions.centreId}
    and ${centres.suspendedAt} is null
    and (${centres.approvedOn} is null
      or (${centres.approvedOn} + interval '5 years')::date > (${now.toISOString()}::timestamptz at time zone ${centreZone})::date))`;
}
