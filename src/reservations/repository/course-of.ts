import { eq } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { centres, stageSessions } from '../../db/schema.js';
import type { CancelledCourse } from '../mail.js';
import type { ReservationRow } from './rows.js';

/**
 * The course a reservation is (or was) for, as the emails name it, read from the database (its
 * centre may be off sale): days and town, with its centre's name and notice address.
 */
export async function courseOf(
  db: Db,
  reservation: Pick<ReservationRow, 'sessionId'>,
): Promise<{ course: CancelledCourse; centreName: string; centreEmail: string | null } | undefined> {
  const [row] = await db
    .select({
      day1: stageSessions.day1,
      day2: stageSessions.day2,
      city: centres.city,
      centreName: centres.name,
      centreEmail: centres.email,
    })
    .from(stageSessions)
    .innerJoin(centres, eq(centres.id, stageSessions.centreId))
    .where(eq(stageSessions.id, reservation.sessionId));
  return (
    row && {
      course: { day1: row.day1, day2: row.day2, city: row.city },
      centreName: row.centreName,
      centreEmail: row.centreEmail,
    }
  );
}
