import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
  /** The Content-Type header's value. */
  contentType: string | undefined;
  /** The files attached, their content decoded as UTF-8 text. */
  attachments: { filename: string | undefined; contentType: string; content: string }[];
  /** Every header as received, by lower-cased name (the last one of a name), unfolded. */
  headers: Record<string, string>;
}

export interface TestSmtpServer {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  /** Every mail received so far, in order of arrival. */
  received: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server on a loopback port (no TLS, no authentication) that keeps what it receives;
 * on `port` when given (a mail server coming back where the service expects it).
 */
export async function startSmtpServer(port = 0): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push({
            to: (Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text ?? '',
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            contentType: (mail.headers.get('content-type') as { value?: string } | undefined)?.value,
            attachments: mail.attachments.map((a) => ({
              filename: a.filename,
              contentType: a.contentType,
              content: a.content.toString('utf8'),
            })),
            headers: Object.fromEntries(
              mail.headerLines.map((h) => [
                h.key,
                h.line
                  .slice(h.line.indexOf(':') + 1)
                  .replace(/\r?\n[ \t]+/g, ' ')
                  .trim(),
              ]),
            ),
          });
          callback();
        },
        (err) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
  const listening = (smtp.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${listening}`,
    received,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
