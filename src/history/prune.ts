import { lt } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { changeHistory } from '../db/schema.js';

/** The centres' history is kept a year (issue 24), then deleted. */
export const HISTORY_KEEP_DAYS = 365;

/** Deletes the history older than a year before `now`; returns how many rows went. */
export async function pruneChangeHistory(db: Db, now: Date): Promise<number> {
  const before = new Date(now.getTime() - HISTORY_KEEP_DAYS * 86_400_000);
  const gone = await db.delete(changeHistory).where(lt(changeHistory.at, before)).returning({ id: changeHistory.id });
  return gone.length;
}
