import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.js';
import type { Database } from '../db/connect.js';

/** One command of `npm run cli`: its line in --help, its options, and what it does. */
export interface Command {
  summary: string;
  usage: string;
  options?: NonNullable<ParseArgsConfig['options']>;
  /** Whether it takes arguments besides its options (a file, an id). */
  positionals?: boolean;
  run(
    database: Database,
    values: Record<string, string | boolean | undefined>,
    positionals: string[],
    config: Config,
  ): Promise<string>;
}

/** The command line is wrong (EX_USAGE). */
export class UsageError extends Error {}
/** The input was read but is not acceptable (EX_DATAERR). */
export class DataError extends Error {}

export const DATE = /^\d{4}-\d{2}-\d{2}$/;
