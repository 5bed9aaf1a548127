import type { FastifyInstance } from 'fastify';
import { errorSummary, PermanentJobError } from '../jobs/errors.js';
import { MAIL_JOB, mailPayload } from './outbox.js';
import { sendsMail, smtpMailer } from './transport.js';

/**
 * The outbox's sender: with SMTP_URL, this instance's job worker sends the queued emails through
 * it (one try per job; the worker retries). Without it, nothing is queued and nothing is sent.
 */
export function registerMail(app: FastifyInstance): void {
  const settings = app.config.mail;
  if (!sendsMail(settings) || settings.smtpUrl === undefined) return;
  const mailer = smtpMailer(settings.smtpUrl, settings.mailFrom);
  app.addHook('onClose', async () => mailer.close());
  app.jobs.handle(MAIL_JOB, async (payload) => {
    const mail = mailPayload.safeParse(payload);
    // An erased or malformed payload: nothing to send, ever.
    if (!mail.success) throw new PermanentJobError('BadMailPayload');
    try {
      await mailer.send(mail.data);
    } catch (err) {
      // The server refused the recipient for good (5xx to RCPT TO): another try gives the same answer.
      // A 5xx elsewhere (authentication, say) is the operator's to mend, and is retried meanwhile.
      const { code, responseCode } = err as { code?: unknown; responseCode?: unknown };
      if (code === 'EENVELOPE' && typeof responseCode === 'number' && responseCode >= 500)
        throw new PermanentJobError(errorSummary(err));
      throw err;
    }
  });
}
