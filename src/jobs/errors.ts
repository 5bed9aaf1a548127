/**
 * A failure that another try cannot mend (a payload that does not parse, a recipient the server
 * refuses for good): the job is marked failed at once instead of being retried.
 */
export class PermanentJobError extends Error {
  override readonly name = 'PermanentJobError';
  /** `code`: a class and code (errorSummary), never a message. */
  constructor(readonly code: string) {
    super(code);
  }
}

const MAX_ERROR_LENGTH = 120;

/**
 * What is kept of a job's failure, in the table and the logs: the error's class, its code and an
 * SMTP or HTTP status, never its message (a mail server's refusal quotes the recipient's address).
 */
export function errorSummary(err: unknown): string {
  if (err instanceof PermanentJobError) return err.code.slice(0, MAX_ERROR_LENGTH);
  if (!(err instanceof Error)) return 'NonError';
  const { code, responseCode, status } = err as { code?: unknown; responseCode?: unknown; status?: unknown };
  const parts = [err.name];
  if (typeof code === 'string' || typeof code === 'number') parts.push(String(code));
  const statusCode = responseCode ?? status;
  if (typeof statusCode === 'number') parts.push(String(statusCode));
  // Class names and codes are identifiers; anything else is dropped rather than risk a message.
  return parts
    .map((p) => p.replace(/[^\w.-]/g, ''))
    .join(':')
    .slice(0, MAX_ERROR_LENGTH);
}
