import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Suites that drive the service from outside with real third-party software: headless Chromium,
 * the official MCP SDK clients, mcp-remote, the MCP Inspector, oauth4webapi, the OpenAPI linters.
 * They test what the service says on the wire, which the database behind it does not change, so
 * they run once, on PostgreSQL (the `interop` project), not once per database and Node version.
 */
const INTEROP = ['test/system/browser/**/*.test.ts', 'test/system/clients/**/*.test.ts'];

/**
 * Suites that need no particular database and are too heavy to run twice (a 32 MB import body), or
 * that test the embedded database itself (the build's template): on PGlite only.
 */
const ONCE = [
  'test/admin/import/record-limit.test.ts',
  'test/db/pglite-template.test.ts',
  'test/system/process/first-start.test.ts',
];

// Each project says what it includes: the root's list would be added to theirs.
const ALL = ['test/**/*.test.ts'];

// The unit and integration suites run twice: on embedded PGlite and on a real PostgreSQL server.
// The PostgreSQL projects fail (never skip) when the server cannot be reached.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default leaves a core to its main process: one worker on a two-core machine. The
    // tests spend much of their time waiting (on PostgreSQL, Chromium, child processes), so a
    // worker per core keeps both busy.
    maxWorkers: availableParallelism(),
    // A worker runs one test file after another in the same process instead of starting a fresh
    // one per file: the service's modules, PGlite's WebAssembly and the template are loaded once
    // per worker, not once per file (about two seconds of CPU a file). What a test sees does not
    // change: src/ keeps no state in its modules but caches of pure functions (reference data,
    // formatters), every test still gets its own app and database, and no test mocks modules or
    // touches process.env. A file that ever needs to (vi.mock) goes into a project of its own.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          include: ALL,
          exclude: INTEROP,
          env: { TEST_DB: 'pglite' },
          globalSetup: ['test/setup/pglite.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ALL,
          exclude: [...INTEROP, ...ONCE],
          env: { TEST_DB: 'postgres' },
          globalSetup: ['test/setup/postgres.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'interop',
          include: INTEROP,
          env: { TEST_DB: 'postgres' },
          globalSetup: ['test/setup/postgres.ts'],
        },
      },
    ],
  },
});
