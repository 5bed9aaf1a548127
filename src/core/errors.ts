/** A field or parameter at fault, and why (problem+json `errors[]`). */
export interface FieldError {
  name: string;
  reason: string;
  /** Imports: position of the bad record in the batch, from 0. */
  index?: number;
  /** Imports (NDJSON, CSV): line of the bad record in the file. */
  line?: number;
  /** Imports: the record's type. */
  type?: string;
  /** Imports: the record's id. */
  id?: string;
}

/**
 * A refusal the domain decides: an HTTP status, a stable machine code (as jose's errors carry),
 * a message for the caller, and the fields at fault. Domain functions throw it; the one error
 * handler (http/errors.ts) answers it as problem+json with its code and fields, and the doors with
 * a format of their own (OAuth, MCP, the reservation form's pages) read its `statusCode` as they
 * read any client error's, and answer it in their format.
 */
export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: FieldError[],
    /** How many fields are at fault in all, when `errors` lists only the first of them (imports). */
    readonly errorCount?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The status under the name Fastify's errors use, so that every door's handler reads it. */
  get statusCode(): number {
    return this.status;
  }
}
