import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { placeHolds } from '../db/schema.js';
import { type Hold, holdView } from './hold-view.js';

/** One hold made under this claim, as its agent sees it; undefined for another claim's or an unknown id. */
export async function claimHold(
  db: Db,
  claimId: string,
  holdId: string,
  deps: { now: Date; baseUrl: string },
): Promise<Hold | undefined> {
  const [row] = await db
    .select()
    .from(placeHolds)
    .where(and(eq(placeHolds.id, holdId), eq(placeHolds.claimId, claimId)));
  return row ? holdView(row, deps.baseUrl, deps.now) : undefined;
}
