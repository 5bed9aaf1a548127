import { accountDataOf } from '../accounts/personal-data.js';
import { alertDataOf } from '../alerts/personal-data.js';
import type { Db } from '../db/connect.js';
import { reservationDataOf } from '../reservations/repository.js';

/**
 * One part of what the service holds about an email, under its own key of the export. Each kind of
 * personal data adds its reader here with one line: the export, and the
 * "Mes données" page's promise that it holds everything, follow.
 */
export type DataSection = (db: Db, email: string) => Promise<Record<string, unknown>>;

export const DATA_SECTIONS: readonly DataSection[] = [
  async (db, email) => ({ account: await accountDataOf(db, email) }),
  async (db, email) => ({ reservations: await reservationDataOf(db, email) }),
  async (db, email) => ({ alerts: await alertDataOf(db, email) }),
];

/** Everything held about `email` (lower-cased, as the signed-in user's), as the person downloads it. */
export async function exportPersonalData(
  db: Db,
  email: string,
  now: Date,
  service: string,
): Promise<Record<string, unknown>> {
  const sections = await Promise.all(DATA_SECTIONS.map((read) => read(db, email)));
  return { service, email, exportedAt: now.toISOString(), ...Object.assign({}, ...sections) };
}
