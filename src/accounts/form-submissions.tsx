import { randomBytes } from 'node:crypto';
import { lt } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { formSubmissions } from '../db/schema.js';
import type { Tx } from '../db/write.js';

/**
 * Create forms sent once: each create form of the signed-in areas carries a new random id (128
 * bits, base64url) in a hidden field; its POST spends the id in the transaction of the write it
 * asks for (an insert into `form_submissions` that does nothing when the id is there already). The
 * same form sent again (a double tap, a network retry, the answer page reloaded) finds its id spent:
 * nothing is written again, and the area says so. Spent ids are forgotten after a day.
 */

/** The hidden field's name. */
export const SUBMISSION_FIELD = '_submission';

const SUBMISSION_ID = /^[A-Za-z0-9_-]{22}$/;

/** How long a spent id is remembered: a form sent again later than this writes again. */
export const SUBMISSION_KEPT_MS = 24 * 3_600_000;

/** Said (400) when a create form comes without its id, or with one that is not ours. */
export const SUBMISSION_MISSING =
  'Ce formulaire est incomplet (son numéro d’envoi manque ou est illisible) : rien n’a été créé. Envoyez-le à nouveau depuis cette page.';

/** An id for a form about to be shown: drawn anew each time a create form is rendered. */
export function newSubmissionId(): string {
  return randomBytes(16).toString('base64url');
}

/** The hidden field carrying a form's id. */
export function SubmissionField({ id }: { id: string }) {
  return <input type="hidden" name={SUBMISSION_FIELD} value={id} />;
}

/** The id a posted form carries, or undefined when it is missing or malformed. */
export function submissionIdOf(form: Record<string, unknown>): string | undefined {
  const value = form[SUBMISSION_FIELD];
  return typeof value === 'string' && SUBMISSION_ID.test(value) ? value : undefined;
}

/** One form's sending: its id, who sent it, and when (the service clock). */
export interface FormSubmission {
  id: string;
  userId: string;
  at: Date;
}

/** Thrown from inside a write's transaction when its form's id was spent already: the write rolls back. */
export class AlreadySubmitted extends Error {
  constructor() {
    super('this form was sent already');
    this.name = 'AlreadySubmitted';
  }
}

/**
 * Spends a form's id in the caller's transaction, or throws AlreadySubmitted when it was spent
 * already (by a committed transaction; a concurrent one holding the same id makes this insert wait
 * for its end). Rolled back with the write, the id can be sent again.
 */
export async function spendSubmission(tx: Tx | Db, submission: FormSubmission): Promise<void> {
  const rows = await tx
    .insert(formSubmissions)
    .values({ id: submission.id, userId: submission.userId, createdAt: submission.at })
    .onConflictDoNothing({ target: formSubmissions.id })
    .returning({ id: formSubmissions.id });
  if (rows.length === 0) throw new AlreadySubmitted();
}

/**
 * Runs `write` in one transaction with the spending of the form's id: `{ written: true, value }`,
 * or `{ written: false }` when the id was spent already (and nothing was written).
 */
export async function writeOnce<T>(
  db: Db,
  submission: FormSubmission,
  write: (tx: Db) => Promise<T>,
): Promise<{ written: true; value: T } | { written: false }> {
  try {
    const value = await db.transaction(async (tx) => {
      await spendSubmission(tx, submission);
      return write(tx);
    });
    return { written: true, value };
  } catch (err) {
    if (err instanceof AlreadySubmitted) return { written: false };
    throw err;
  }
}

/** Forgets the ids spent more than a day ago. */
export async function pruneFormSubmissions(db: Db, now: Date): Promise<number> {
  const rows = await db
    .delete(formSubmissions)
    .where(lt(formSubmissions.createdAt, new Date(now.getTime() - SUBMISSION_KEPT_MS)))
    .returning({ id: formSubmissions.id });
  return rows.length;
}
