import type { Transporter } from 'nodemailer';

/** A small text file sent with an email (a reservation's calendar file). */
export interface MailAttachment {
  filename: string;
  contentType: string;
  content: string;
}

/** One plain-text email, with text attachments if any. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  attachments?: MailAttachment[] | undefined;
  /** Extra header lines, by name (an alert's List-Unsubscribe and List-Unsubscribe-Post, RFC 8058). */
  headers?: Record<string, string> | undefined;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/** Where mail goes out from (config.mail): no SMTP_URL, no email. */
export interface MailSettings {
  smtpUrl?: string | undefined;
  mailFrom: string;
}

/** Whether the service sends emails: only with an SMTP server (SMTP_URL). The pages say which. */
export function sendsMail(settings: MailSettings): boolean {
  return settings.smtpUrl !== undefined;
}

// Well within the jobs' lease (jobs/worker.ts), so that a hung server fails the try instead of
// letting another instance send the same mail meanwhile. Nodemailer's own defaults go to 10 minutes.
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** Sends through the SMTP server of SMTP_URL (nodemailer), from MAIL_FROM. Plain text only. */
export function smtpMailer(smtpUrl: string, from: string): Mailer {
  // Nodemailer loads with the first email, not at start (about 90 ms and 10 MB of a start that may
  // send none); SMTP_URL's form is checked by the configuration before.
  let transport: Promise<Transporter> | undefined;
  const open = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport(smtpUrl, { from, ...TIMEOUTS }),
    ));
  return {
    async send(mail) {
      const attachments = mail.attachments?.map((a) => ({
        filename: a.filename,
        contentType: a.contentType,
        content: a.content,
      }));
      await (await open()).sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        attachments,
        ...(mail.headers ? { headers: mail.headers } : {}),
      });
    },
    // A transport that never opened has nothing to close (and its failure was a send's to report).
    close: () =>
      void transport?.then(
        (t) => t.close(),
        () => undefined,
      ),
  };
}
