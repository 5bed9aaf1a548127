import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { loadDemoCatalogue } from './catalogue/demo/load.js';
import { countCentres } from './catalogue/repository.js';
import { catalogueCopyIn, keepCopyCurrent } from './catalogue/stored-copy.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { dateIn, systemClock } from './core/clock.js';
import { relaxHeapGrowth } from './core/heap-growth.js';
import { type Database, openDatabase } from './db/connect.js';
import { seedFromTemplate, stampCreation } from './db/pglite-template.js';

// Run as a child by the first start on the embedded database: create it, migrate, load the demo, exit.
const PREPARE_ONLY = '--prepare-only';

/** Applies the migrations and, when the catalogue is empty and the demo is wanted, loads the demo. */
async function prepare(config: Config, database: Database): Promise<void> {
  await database.migrate();
  if (config.database.kind === 'pglite') await stampCreation(config.database.dataDir, database);
  if (config.demoCatalogue && (await countCentres(database.db)) === 0) {
    const result = await loadDemoCatalogue(database.db, { today: dateIn(systemClock.now()), onlyIfEmpty: true });
    if (result.loaded)
      console.log(`Loaded the demo catalogue: ${result.centres} centres, ${result.sessions} sessions.`);
  }
}

/**
 * Creating an embedded database runs initdb inside PGlite's WebAssembly memory, which grows to
 * about 1 GB and is never given back; loading the demo catalogue grows it by about 80 MB more. Doing
 * them in a short-lived child process, which also keeps the catalogue's copy, leaves the server itself
 * at the size of a restart. When the build's template is there (pglite-template.ts), its copy replaces
 * initdb and the migrations, and the child only loads the demo.
 */
async function prepareEmbeddedInChild(config: Config, dataDir: string): Promise<void> {
  const seeded = seedFromTemplate(dataDir);
  if (!seeded && existsSync(join(dataDir, 'PG_VERSION'))) return;
  if (seeded && !config.demoCatalogue) return;
  const script = process.argv[1];
  if (!script) return;
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = fork(script, [PREPARE_ONLY], { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (status) => resolve(status));
  });
  if (code !== 0) throw new Error(`preparing the embedded database in ${dataDir} failed (exit status ${code})`);
}

/**
 * The embedded database's PostgreSQL is 9 MB of WebAssembly. V8 compiles each function with its
 * baseline compiler (Liftoff) when first called, then recompiles the hot ones with its optimising
 * one (TurboFan), whose code and compilations held about 45 MB more of the server's RSS after a
 * start and 65 MB after 6,000 updates, and 0.2 s of a restart's CPU. The server reads from its
 * read model, not from PostgreSQL; its writes, single rows, cost 0.30–0.33 → 0.36–0.42 ms of CPU each
 * once warm (a 5,000-row update 150–173 → 210–230 ms: imports are slower; bench/micro/pglite-compiler.ts),
 * and less during the first thousands, which the optimising compiler spends compiling. The flag must
 * be set before PGlite compiles its module; every function of this PGlite compiles under Liftoff
 * (no bailout, which the flag would make fatal: test/db/liftoff.test.ts). Not in the short-lived
 * child that loads the demo, whose bulk writes gain from the optimised code.
 */
function servePgliteFromBaselineCode(): void {
  setFlagsFromString('--liftoff-only');
}

async function main(): Promise<void> {
  const config = loadConfig();
  if (process.argv.includes(PREPARE_ONLY)) {
    const database = await openDatabase(config.database);
    await prepare(config, database);
    // The catalogue just loaded, kept where the server looks for it: its first start then reads one
    // file, as a restart does, instead of every session through PGlite (whose memory would grow for good).
    if (config.database.kind === 'pglite')
      await keepCopyCurrent(database.db, catalogueCopyIn(config.database.dataDir), undefined, (err) =>
        console.warn('Could not keep a copy of the catalogue; the server reads the database:', err),
      );
    await database.close();
    return;
  }
  if (config.database.kind === 'pglite') {
    await prepareEmbeddedInChild(config, config.database.dataDir);
    servePgliteFromBaselineCode();
  }
  // The service's modules (Fastify, every door, ~0.5 s) load while the database opens: PGlite
  // compiles its WebAssembly off the main thread and reads its files, time the loading fills.
  const modules = Promise.all([import('./app.js'), import('./http/lifecycle.js'), import('./http/metrics.js')]);
  const database = await openDatabase(config.database);
  await prepare(config, database);
  const [{ buildApp }, { gracefulShutdown }, { startMetricsServer }] = await modules;

  // The embedded database is this process's alone: a copy of its catalogue beside it spares a restart
  // reading every session through PGlite (catalogue/stored-copy.ts).
  const catalogueCopy = config.database.kind === 'pglite' ? catalogueCopyIn(config.database.dataDir) : undefined;
  const app = await buildApp(config, catalogueCopy ? { database, catalogueCopy } : { database });
  const metricsServer = config.metrics
    ? await startMetricsServer(app, config.metrics.port, config.metrics.host)
    : undefined;
  const stop = gracefulShutdown(app, {
    ...config.shutdown,
    afterClose: async () => {
      metricsServer?.closeAllConnections();
      metricsServer?.close();
      await database.close();
    },
  });
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  // The read model is built: from now on, fewer full collections of it (core/heap-growth.ts).
  relaxHeapGrowth(config.heapGrowingPercent);
  const base = config.publicBaseUrl;
  const where = config.database.kind === 'pglite' ? `embedded database in ${config.database.dataDir}` : 'PostgreSQL';
  console.log(`\nStages API listening on ${base} (${where})`);
  if (config.metrics) console.log(`Metrics: http://${config.metrics.host}:${config.metrics.port}/metrics`);
  console.log(
    `Try: curl '${base}/api/stages?dept=69&limit=3'   ·   docs: ${base}/openapi.json   ·   ${base}/llms.txt\n`,
  );
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(78); // EX_CONFIG
  }
  console.error('Failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
