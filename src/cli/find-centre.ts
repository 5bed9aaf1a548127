import { eq } from 'drizzle-orm';
import { UUID } from '../core/uuid.js';
import type { Database } from '../db/connect.js';
import { centres } from '../db/schema.js';

/** The centre a command names by its slug or its id. */
export async function findCentre(database: Database, slugOrId: string): Promise<{ id: string } | undefined> {
  const [row] = await database.db
    .select({ id: centres.id })
    .from(centres)
    .where(UUID.test(slugOrId) ? eq(centres.id, slugOrId.toLowerCase()) : eq(centres.slug, slugOrId));
  return row;
}
