import { defineConfig } from 'vitest/config';

// The whole suite runs twice: on embedded PGlite and on a real PostgreSQL server. The
// PostgreSQL project fails (never skips) when the server cannot be reached.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'pglite', env: { TEST_DB: 'pglite' }, globalSetup: ['test/setup/pglite.ts'] },
      },
      {
        extends: true,
        test: { name: 'postgres', env: { TEST_DB: 'postgres' }, globalSetup: ['test/setup/postgres.ts'] },
      },
    ],
  },
});
