import { z } from 'zod';
import type { Db } from '../db/connect.js';
import type { Tx } from '../db/write.js';
import { enqueue } from '../jobs/enqueue.js';
import type { Mail } from './transport.js';

/** The jobs table's kind for an email. */
export const MAIL_JOB = 'mail';

export const mailPayload = z.object({
  to: z.string().min(1),
  subject: z.string(),
  text: z.string(),
  // Small text files only (a calendar file is about 2 KB), stored as they are sent.
  attachments: z.array(z.object({ filename: z.string(), contentType: z.string(), content: z.string() })).optional(),
  // Header lines a feature adds (List-Unsubscribe): names and values of printable ASCII only, so a
  // value can never start another header.
  headers: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9-]*$/), z.string().regex(/^[\x20-\x7e]*$/)).optional(),
});

/**
 * Puts an email in the outbox, in the caller's transaction: it goes out if and only if what it
 * announces commits, sent by a worker that retries until the mail server takes it (mail/plugin.ts).
 * `secret`: the text holds a private or sign-in link. Every sent mail's row is deleted; a secret
 * one's text is also erased if it can never be sent. Call it only when mail is configured
 * (`sendsMail`): without SMTP_URL nothing would ever send it.
 */
export async function queueMail(tx: Tx | Db, mail: Mail, options: { secret: boolean }): Promise<void> {
  const payload = { to: mail.to, subject: mail.subject, text: mail.text };
  const attachments = mail.attachments?.length ? { attachments: mail.attachments } : {};
  const headers = mail.headers ? { headers: mail.headers } : {};
  await enqueue(tx, MAIL_JOB, { ...payload, ...attachments, ...headers }, { secret: options.secret });
}
