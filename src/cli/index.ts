import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { eq } from 'drizzle-orm';
import { createApiKey, listApiKeys, revokeApiKey } from '../admin/api-keys.js';
import { exportCatalogue, ImportRefused, importBatch, parseImport } from '../admin/import.js';
import { listSigningKeys, rotateSigningKey } from '../auth/signing-keys.js';
import { DEMO_SEED } from '../catalogue/demo/generate.js';
import { loadDemoCatalogue } from '../catalogue/demo/load.js';
import { ConfigError, loadConfig } from '../config.js';
import { dateIn, systemClock } from '../core/clock.js';
import { type Database, openDatabase } from '../db/connect.js';
import { centres } from '../db/schema.js';
import { purgePersonalData } from '../reservations/repository.js';

interface Command {
  summary: string;
  usage: string;
  options?: NonNullable<ParseArgsConfig['options']>;
  /** Whether it takes arguments besides its options (a file, an id). */
  positionals?: boolean;
  run(database: Database, values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<string>;
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
    summary:
      'Replace the whole catalogue with a freshly generated demo catalogue (--scale 10: ten times the sessions).',
    usage: 'demo [--seed TEXT] [--today YYYY-MM-DD] [--scale N]',
    options: { seed: { type: 'string' }, today: { type: 'string' }, scale: { type: 'string' } },
    async run(database, values) {
      const today = typeof values.today === 'string' ? values.today : dateIn(systemClock.now());
      if (!/^\d{4}-\d{2}-\d{2}$/.test(today)) throw new UsageError('--today must be a date in YYYY-MM-DD form');
      const seed = typeof values.seed === 'string' ? values.seed : DEMO_SEED;
      const scale = values.scale === undefined ? 1 : Number(values.scale);
      if (!Number.isInteger(scale) || scale < 1 || scale > 50)
        throw new UsageError('--scale must be a whole number from 1 to 50');
      const result = await loadDemoCatalogue(database.db, { today, seed, scale });
      return `Demo catalogue loaded (seed "${seed}", from ${today}${scale > 1 ? `, scale ${scale}` : ''}): ${result.centres} centres, ${result.sessions} sessions.`;
    },
  },
  'reservations:purge': {
    summary:
      'Erase the personal data (names, email, phone, private links) of reservations whose session ended before the date; status and counts stay.',
    usage: 'reservations:purge --before YYYY-MM-DD',
    options: { before: { type: 'string' } },
    async run(database, values) {
      const before = values.before;
      if (typeof before !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(before) || Number.isNaN(Date.parse(before)))
        throw new UsageError('--before must be a date in YYYY-MM-DD form');
      if (before > dateIn(systemClock.now()))
        throw new UsageError('--before must not be after today: sessions that have not ended keep their reservations');
      const erased = await purgePersonalData(database.db, before);
      return `Personal data erased from ${erased.reservations} reservation${erased.reservations === 1 ? '' : 's'} of sessions ended before ${before} (${erased.links} private link${erased.links === 1 ? '' : 's'} deleted).`;
    },
  },
  'apikey:create': {
    summary:
      'Create an API key for the admin API: an operator key (every centre) or a partner key (one centre). Shown once.',
    usage: 'apikey:create --role admin|partner [--centre SLUG|ID] --name TEXT',
    options: { role: { type: 'string' }, centre: { type: 'string' }, name: { type: 'string' } },
    async run(database, values) {
      const role = values.role;
      if (role !== 'admin' && role !== 'partner') throw new UsageError('--role must be admin or partner');
      const name = typeof values.name === 'string' ? values.name.trim() : '';
      if (!name || name.length > 100) throw new UsageError('--name must be a text of 1 to 100 characters');
      let centreId: string | null = null;
      if (role === 'partner') {
        if (typeof values.centre !== 'string') throw new UsageError('a partner key needs --centre SLUG|ID');
        const centre = await findCentre(database, values.centre);
        if (!centre) throw new UsageError(`No centre has the slug or id "${values.centre}".`);
        centreId = centre.id;
      } else if (values.centre !== undefined) throw new UsageError('--centre is for partner keys only');
      const { key, identity } = await createApiKey(database.db, { name, role, centreId });
      return [
        `Created ${role} key ${identity.id} ("${name}")${centreId ? ` for centre ${centreId}` : ''}.`,
        'The key is shown once; store it now (only its hash is kept):',
        '',
        `  ${key}`,
        '',
        'Send it as: Authorization: Bearer <key>',
      ].join('\n');
    },
  },
  'apikey:list': {
    summary: 'List the API keys (id, role, centre, name, created, revoked); never the keys themselves.',
    usage: 'apikey:list',
    async run(database) {
      const keys = await listApiKeys(database.db);
      if (keys.length === 0) return 'No API key yet: npm run cli -- apikey:create --role admin --name ops';
      return keys
        .map(
          (k) =>
            `${k.id}  ${k.role.padEnd(7)}  ${(k.centreId ?? '-').padEnd(36)}  ${k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active'}  created ${k.createdAt.toISOString()}  ${k.name}`,
        )
        .join('\n');
    },
  },
  'apikey:revoke': {
    summary: 'Revoke an API key, at once, on every instance.',
    usage: 'apikey:revoke ID',
    positionals: true,
    async run(database, _values, positionals) {
      const [id] = positionals;
      if (!id || positionals.length > 1) throw new UsageError('give the id of one key (see apikey:list)');
      if (!(await revokeApiKey(database.db, id, systemClock.now())))
        throw new UsageError(`No active key has the id ${id}.`);
      return `Key ${id} revoked.`;
    },
  },
  import: {
    summary: 'Import centres and sessions from a file (JSON, NDJSON or CSV), upserted by id, all or nothing.',
    usage: 'import FILE [--format json|ndjson|csv] [--dry-run]',
    options: { format: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    positionals: true,
    async run(database, values, positionals) {
      const [file] = positionals;
      if (!file || positionals.length > 1) throw new UsageError('give one file to import');
      const format = (values.format ?? formatOf(file)) as string;
      if (format !== 'json' && format !== 'ndjson' && format !== 'csv')
        throw new UsageError('--format must be json, ndjson or csv (or name the file .json, .ndjson or .csv)');
      const text = await readFile(file, 'utf8');
      try {
        const result = await importBatch(
          database.db,
          parseImport(text, format),
          { centreId: null },
          { dryRun: values['dry-run'] === true },
        );
        const line = (what: string, c: { created: number; updated: number; unchanged: number }) =>
          `${what}: ${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged`;
        return [
          result.dryRun ? 'Dry run: the file is valid; nothing was written.' : 'Imported.',
          line('centres', result.centres),
          line('sessions', result.sessions),
        ].join('\n');
      } catch (err) {
        if (!(err instanceof ImportRefused)) throw err;
        const lines = err.issues.map(
          (i) =>
            `  record ${i.index}${i.line ? ` (line ${i.line})` : ''}${i.id ? ` ${i.id}` : ''}: ${i.field}: ${i.reason}`,
        );
        throw new DataError(`${err.message}\n${lines.join('\n')}`);
      }
    },
  },
  export: {
    summary: 'Write the whole catalogue to standard output, in the import format (importing it back changes nothing).',
    usage: 'export [--format json|ndjson|csv]',
    options: { format: { type: 'string' } },
    async run(database, values) {
      const format = values.format ?? 'json';
      if (format !== 'json' && format !== 'ndjson' && format !== 'csv')
        throw new UsageError('--format must be json, ndjson or csv');
      const text = await exportCatalogue(database.db, format);
      // Wait until the pipe took it all: the process exits right after, and a pipe writes asynchronously.
      await new Promise<void>((resolve, reject) =>
        process.stdout.write(text, (err) => (err ? reject(err) : resolve())),
      );
      return '';
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
/** The input was read but is not acceptable (EX_DATAERR). */
class DataError extends Error {}

function formatOf(file: string): string | undefined {
  return extname(file).slice(1).toLowerCase() || undefined;
}

async function findCentre(database: Database, slugOrId: string) {
  const [row] = await database.db
    .select({ id: centres.id })
    .from(centres)
    .where(UUID.test(slugOrId) ? eq(centres.id, slugOrId.toLowerCase()) : eq(centres.slug, slugOrId));
  return row;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
    const output = await command.run(database, values, positionals);
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
