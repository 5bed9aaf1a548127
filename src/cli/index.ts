import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/connect.js';
import { type Command, DataError, UsageError } from './command.js';
import { apikeyCreate } from './commands/apikey-create.js';
import { apikeyList } from './commands/apikey-list.js';
import { apikeyRevoke } from './commands/apikey-revoke.js';
import { demo } from './commands/demo.js';
import { exportCommand } from './commands/export.js';
import { importFile } from './commands/import.js';
import { jobsList } from './commands/jobs-list.js';
import { jobsRetry } from './commands/jobs-retry.js';
import { keysList } from './commands/keys-list.js';
import { keysRotate } from './commands/keys-rotate.js';
import { migrate } from './commands/migrate.js';
import { reservationsPurge } from './commands/reservations-purge.js';
import { loginLink, usersCreate, usersDisable, usersList } from './commands/users.js';

/** The commands, in the order --help lists them. */
const COMMANDS: Record<string, Command> = {
  migrate,
  demo,
  'reservations:purge': reservationsPurge,
  'apikey:create': apikeyCreate,
  'apikey:list': apikeyList,
  'apikey:revoke': apikeyRevoke,
  import: importFile,
  export: exportCommand,
  'keys:rotate': keysRotate,
  'keys:list': keysList,
  'jobs:list': jobsList,
  'jobs:retry': jobsRetry,
  'users:create': usersCreate,
  'users:list': usersList,
  'users:disable': usersDisable,
  'login-link': loginLink,
};

function help(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(40)} ${c.summary}`);
  return [
    'Usage: npm run cli -- <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'The database is chosen as for the server: DATABASE_URL (PostgreSQL) or DATA_DIR (embedded, default ./data).',
    'Stop the server before using the embedded database: PGlite serves one process at a time.',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(help());
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`Unknown command "${name}".\n\n${help()}`);
    return 64; // EX_USAGE
  }
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: rest,
      options: { help: { type: 'boolean', short: 'h' }, ...command.options },
      strict: true,
      allowPositionals: command.positionals ?? false,
    });
    values = parsed.values as Record<string, string | boolean | undefined>;
    positionals = parsed.positionals;
  } catch (err) {
    console.error(`${(err as Error).message}\nUsage: npm run cli -- ${command.usage}`);
    return 64;
  }
  if (values.help) {
    console.log(`Usage: npm run cli -- ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  const config = loadConfig();
  const database = await openDatabase(config.database);
  try {
    await database.migrate();
    const output = await command.run(database, values, positionals, config);
    if (output) console.log(output);
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    if (err instanceof UsageError) {
      console.error(err.message);
      process.exit(64);
    }
    if (err instanceof DataError) {
      console.error(err.message);
      process.exit(65); // EX_DATAERR
    }
    console.error(`Failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
