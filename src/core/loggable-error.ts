/**
 * What a log line may say of an error: its class and code always; its message only when no
 * database error is in its chain. Drizzle's wrapper quotes the statement and its parameters
 * ("Failed query: select … params: …", where a parameter can be a reservation reference or an
 * email), and PostgreSQL's own messages may quote a value ('invalid input syntax for type uuid:
 * "…"'): for those the SQLSTATE says what happened, and the stack frames where. The logger's `err`
 * serialiser (http/fastify-options.ts), so every `log.x({ err })` goes through it.
 */
export interface LoggedError {
  type: string;
  code?: string;
  message?: string;
  stack?: string;
  cause?: LoggedError;
}

const MAX_DEPTH = 5;

/** An error the database raised, or Drizzle's wrapper of one. */
function fromDatabase(err: Error): boolean {
  if (err.constructor?.name === 'DrizzleQueryError' || err.message.startsWith('Failed query:')) return true;
  // node-postgres and PGlite raise a DatabaseError with PostgreSQL's severity and SQLSTATE.
  const fields = err as { severity?: unknown; code?: unknown };
  return typeof fields.severity === 'string' && typeof fields.code === 'string';
}

function chainOf(err: Error): Error[] {
  const chain: Error[] = [];
  for (let current: unknown = err; current instanceof Error && chain.length < MAX_DEPTH; current = current.cause)
    chain.push(current);
  return chain;
}

/** The frames of a stack without its first lines (which repeat the message). */
function framesOf(stack: string | undefined): string | undefined {
  const frames = stack?.split('\n').filter((line) => /^\s+at /.test(line));
  return frames?.length ? frames.join('\n') : undefined;
}

function summary(chain: Error[], withMessages: boolean): LoggedError | undefined {
  const [err, ...causes] = chain;
  if (!err) return undefined;
  const code = (err as { code?: unknown }).code;
  const cause = summary(causes, withMessages);
  const stack = withMessages ? err.stack : framesOf(err.stack);
  return {
    // The class (Drizzle's wrapper keeps the name "Error"; its class says DrizzleQueryError).
    type: err.constructor?.name || err.name,
    ...(typeof code === 'string' ? { code } : {}),
    ...(withMessages ? { message: err.message } : {}),
    ...(stack ? { stack } : {}),
    ...(cause ? { cause } : {}),
  };
}

export function loggableError(value: unknown): unknown {
  if (!(value instanceof Error)) {
    // A message logged as text: the same rule, when it is Drizzle's.
    return typeof value === 'string' && value.startsWith('Failed query:') ? '[database error]' : value;
  }
  const chain = chainOf(value);
  return summary(chain, !chain.some(fromDatabase));
}
