import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { replaceCatalogue } from '../../src/catalogue/repository.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/connect.js';
import { Browser, followLink } from '../helpers/accounts.js';
import { cli, cliDatabase } from '../helpers/cli.js';
import { CENTRES, FIXTURE_CATALOGUE } from '../helpers/fixtures.js';

let env: Record<string, string>;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ env, cleanup } = await cliDatabase());
  env = { ...env, PUBLIC_BASE_URL: 'https://stages.example.test' };
  expect((await cli(['migrate'], env)).code).toBe(0);
  const database = await openDatabase(loadConfig(env).database);
  await replaceCatalogue(database.db, FIXTURE_CATALOGUE);
  await database.close();
}, 120_000);
afterAll(() => cleanup());

describe('users on the command line', { timeout: 120_000 }, () => {
  it('gives roles, lists them, prints a sign-in link that works, and disables a user', async () => {
    const admin = await cli(['users:create', '--email', 'Exploitant@Example.org', '--role', 'admin'], env);
    expect(admin.code, admin.stderr).toBe(0);
    expect(admin.stdout.trim()).toBe('exploitant@example.org: admin.');
    const owner = await cli(
      ['users:create', '--email', 'gerante@centre-lyon.example', '--role', 'owner', '--centre', CENTRES.lyon.slug],
      env,
    );
    expect(owner.stdout.trim()).toBe(`gerante@centre-lyon.example: owner of ${CENTRES.lyon.slug}.`);

    const list = await cli(['users:list'], env);
    expect(list.stdout).toBe(
      `exploitant@example.org\tadmin\ngerante@centre-lyon.example\towner of ${CENTRES.lyon.slug}\n`,
    );

    const link = await cli(['login-link', '--email', 'gerante@centre-lyon.example'], env);
    expect(link.code, link.stderr).toBe(0);
    const url = /https:\/\/stages\.example\.test(\/connexion\/lien\/[A-Za-z0-9_-]{43})/.exec(link.stdout)?.[1];
    expect(url, link.stdout).toBeDefined();

    // The link signs in, once, on the service started on the same database.
    const database = await openDatabase(loadConfig(env).database);
    const app = await buildApp(loadConfig(env), { database, logger: false });
    try {
      const browser = new Browser(app);
      const signedIn = await followLink(browser, url as string);
      expect(signedIn.statusCode, signedIn.body).toBe(303);
      expect((await browser.get('/espace-centre')).body).toContain(CENTRES.lyon.name);
    } finally {
      await app.close();
      await database.close();
    }

    const disabled = await cli(['users:disable', '--email', 'gerante@centre-lyon.example'], env);
    expect(disabled.code).toBe(0);
    expect((await cli(['users:list'], env)).stdout).toContain(`owner of ${CENTRES.lyon.slug}\tdisabled`);
  });

  it('says what is wrong with a command line, and with an unknown user', async () => {
    expect((await cli(['users:create', '--email', 'x', '--role', 'admin'], env)).code).toBe(64);
    expect((await cli(['users:create', '--email', 'a@b.example', '--role', 'boss'], env)).code).toBe(64);
    const noCentre = await cli(['users:create', '--email', 'a@b.example', '--role', 'staff'], env);
    expect(noCentre.code).toBe(64);
    expect(noCentre.stderr).toContain('--centre');
    expect(
      (await cli(['users:create', '--email', 'a@b.example', '--role', 'staff', '--centre', 'nowhere'], env)).code,
    ).toBe(64);
    const unknown = await cli(['users:disable', '--email', 'nobody@example.org'], env);
    expect(unknown.code).toBe(65);
    expect(unknown.stderr).toContain('No user has the email nobody@example.org');
  });
});
