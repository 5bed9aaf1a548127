import { buildApp } from './app.js';
import { dateIn, systemClock } from './catalogue/clock.js';
import { loadDemoCatalogue } from './catalogue/demo/load.js';
import { countCentres } from './catalogue/repository.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/connect.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config.database);
  await database.migrate();
  if (config.demoCatalogue && (await countCentres(database.db)) === 0) {
    const result = await loadDemoCatalogue(database.db, { today: dateIn(systemClock.now()), onlyIfEmpty: true });
    if (result.loaded)
      console.log(`Loaded the demo catalogue: ${result.centres} centres, ${result.sessions} sessions.`);
  }

  const app = await buildApp(config, { database });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      app.log.error('shutdown took over 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    try {
      await app.close();
      await database.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  const base = config.publicBaseUrl;
  console.log(
    `\nStages API listening on ${base} (${database.kind === 'pglite' ? `embedded database in ${config.database.kind === 'pglite' ? config.database.dataDir : ''}` : 'PostgreSQL'})`,
  );
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
