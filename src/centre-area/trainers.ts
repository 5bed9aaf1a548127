import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { sessionTrainers } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import type { Actor } from '../history/actor.js';
import type { Change } from '../history/changes.js';
import { recordChanges } from '../history/record.js';
import type { FieldError } from '../web/field.js';

/*
 * A session's two trainers, as the prefecture's declaration needs them (arrêté du 26 juin 2012: the
 * course is led by a psychologist and a road-safety trainer holding the BAFM). Private to the centre:
 * read and written by its area only, never by a public answer nor the admin API.
 */

export interface TrainersForm {
  psychologistName: string;
  psychologistNumber: string;
  bafmName: string;
  bafmNumber: string;
}

export const TRAINER_FIELDS = ['psychologistName', 'psychologistNumber', 'bafmName', 'bafmNumber'] as const;

export const NO_TRAINERS: TrainersForm = { psychologistName: '', psychologistNumber: '', bafmName: '', bafmNumber: '' };

export interface StoredTrainers extends TrainersForm {
  /** When they were last written (ISO), '' when never: the version a form was filled from. */
  version: string;
}

/** The session's trainers as stored ('' for what is not). */
export async function trainersOf(db: Db | Tx, sessionId: string, lock = false): Promise<StoredTrainers> {
  const query = db.select().from(sessionTrainers).where(eq(sessionTrainers.sessionId, sessionId));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) return { ...NO_TRAINERS, version: '' };
  return {
    psychologistName: row.psychologistName ?? '',
    psychologistNumber: row.psychologistNumber ?? '',
    bafmName: row.bafmName ?? '',
    bafmNumber: row.bafmNumber ?? '',
    version: row.updatedAt.toISOString(),
  };
}

/** The trainers' fields of a posted form, trimmed and bounded. */
export function trainersTyped(body: Record<string, unknown>): TrainersForm {
  const text = (k: string) =>
    typeof body[k] === 'string' ? (body[k] as string).replace(/\s+/g, ' ').trim().slice(0, 120) : '';
  return {
    psychologistName: text('psychologistName'),
    psychologistNumber: text('psychologistNumber').replace(/\s/g, ''),
    bafmName: text('bafmName'),
    bafmNumber: text('bafmNumber'),
  };
}

/** What is wrong with the trainers' fields, each next to its field. */
export function trainersErrors(form: TrainersForm): FieldError[] {
  const errors: FieldError[] = [];
  if (form.psychologistName.length > 100)
    errors.push({ field: 'psychologistName', message: 'Psychologue : 100 caractères au plus.' });
  if (form.bafmName.length > 100)
    errors.push({ field: 'bafmName', message: 'Formateur BAFM : 100 caractères au plus.' });
  if (form.psychologistNumber !== '' && !/^(\d{9}|\d{11})$/.test(form.psychologistNumber))
    errors.push({
      field: 'psychologistNumber',
      message: 'N° ADELI ou RPPS du psychologue : 9 chiffres (ADELI) ou 11 chiffres (RPPS), ou rien.',
    });
  if (form.bafmNumber.length > 40 || (form.bafmNumber !== '' && !/^[\p{L}\d][\p{L}\d ./-]*$/u.test(form.bafmNumber)))
    errors.push({ field: 'bafmNumber', message: 'N° du BAFM : lettres, chiffres, / . - (40 au plus), ou rien.' });
  return errors;
}

/** The trainers changed since the form was filled from version `version`. */
export class TrainersChanged extends Error {}

/**
 * Writes the session's trainers in the caller's transaction, if the stored ones are still those of
 * `version`, recording each changed field in the centre's history as `actor`'s.
 */
export async function saveTrainers(
  tx: Tx,
  session: { id: string; centreId: string },
  form: TrainersForm,
  version: string | undefined,
  actor: Actor,
): Promise<void> {
  const stored = await trainersOf(tx, session.id, true);
  if (version !== undefined && version !== stored.version) throw new TrainersChanged();
  const changes: Change[] = TRAINER_FIELDS.filter((f) => stored[f] !== form[f]).map((field) => ({
    centreId: session.centreId,
    entity: 'session',
    entityId: session.id,
    field,
    oldValue: stored[field] || null,
    newValue: form[field] || null,
  }));
  if (changes.length === 0) return;
  const values = Object.fromEntries(TRAINER_FIELDS.map((f) => [f, form[f] || null])) as Record<
    (typeof TRAINER_FIELDS)[number],
    string | null
  >;
  await tx
    .insert(sessionTrainers)
    .values({ sessionId: session.id, ...values })
    .onConflictDoUpdate({ target: sessionTrainers.sessionId, set: { ...values, updatedAt: sql`now()` } });
  await recordChanges(tx, actor, changes);
}
