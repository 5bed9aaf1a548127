import { type ParseArgsConfig, parseArgs } from 'node:util';
import { listSigningKeys, rotateSigningKey } from '../auth/signing-keys.js';
import { dateIn, systemClock } from '../catalogue/clock.js';
import { DEMO_SEED } from '../catalogue/demo/generate.js';
import { loadDemoCatalogue } from '../catalogue/demo/load.js';
import { ConfigError, loadConfig } from '../config.js';
import { type Database, openDatabase } from '../db/connect.js';

interface Command {
  summary: string;
  usage: string;
  options?: NonNullable<ParseArgsConfig['options']>;
  run(database: Database, values: Record<string, string | boolean | undefined>): Promise<string>;
}

const COMMANDS: Record<string, Command> = {
  migrate: {
    summary: 'Apply pending database migrations (the server also does this at start).',
    usage: 'migrate',
    async run() {
      return 'Migrations applied.';
    },
  },
  demo: {
    summary: 'Replace the whole catalogue with a freshly generated demo catalogue.',
    usage: 'demo [--seed TEXT] [--today YYYY-MM-DD]',
    options: { seed: { type: 'string' }, today: { type: 'string' } },
    async run(database, values) {
      const today = typeof values.today === 'string' ? values.today : dateIn(systemClock.now());
      if (!/^\d{4}-\d{2}-\d{2}$/.test(today)) throw new UsageError('--today must be a date in YYYY-MM-DD form');
      const seed = typeof values.seed === 'string' ? values.seed : DEMO_SEED;
      const result = await loadDemoCatalogue(database.db, { today, seed });
      return `Demo catalogue loaded (seed "${seed}", from ${today}): ${result.centres} centres, ${result.sessions} sessions.`;
    },
  },
  'keys:rotate': {
    summary: 'Add a new access-token signing key; the previous one keeps verifying until its last token expired.',
    usage: 'keys:rotate',
    async run(database) {
      const now = systemClock.now();
      const result = await rotateSigningKey(database.db, now);
      const lines = [`New signing key ${result.kid} is active. Running instances sign with it within a minute.`];
      for (const k of result.retiring)
        lines.push(`Key ${k.kid} stops signing and stays published until ${k.retiresAt?.toISOString()}.`);
      if (result.deleted.length > 0) lines.push(`Deleted keys retired earlier: ${result.deleted.join(', ')}.`);
      if (loadConfig().signingKey)
        lines.push('Note: SIGNING_KEY is set, so instances keep signing with that key; database keys only verify.');
      return lines.join('\n');
    },
  },
  'keys:list': {
    summary: 'List the access-token signing keys: active, retiring (still verifying) or retired.',
    usage: 'keys:list',
    async run(database) {
      const now = systemClock.now();
      const keys = await listSigningKeys(database.db);
      if (keys.length === 0) return 'No signing key yet: the server creates one at its first start.';
      return keys
        .map((k) => {
          const status =
            k.retiresAt === null
              ? 'active'
              : k.retiresAt > now
                ? `retiring, verifies until ${k.retiresAt.toISOString()}`
                : `retired ${k.retiresAt.toISOString()}`;
          return `${k.kid}  created ${k.createdAt.toISOString()}  ${status}`;
        })
        .join('\n');
    },
  },
};

class UsageError extends Error {}

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
  try {
    const parsed = parseArgs({
      args: rest,
      options: { help: { type: 'boolean', short: 'h' }, ...command.options },
      strict: true,
    });
    values = parsed.values as Record<string, string | boolean | undefined>;
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
    console.log(await command.run(database, values));
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
    console.error(`Failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
