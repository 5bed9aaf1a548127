import { eq } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import { centres } from '../../db/schema.js';

/** The centre's contact details and notice address, for the confirmation page and emails. */
export async function centreContact(db: Db, centreId: string) {
  const [row] = await db
    .select({
      name: centres.name,
      email: centres.email,
      phone: centres.phone,
      cancellationTerms: centres.cancellationTerms,
    })
    .from(centres)
    .where(eq(centres.id, centreId));
  return row;
}
