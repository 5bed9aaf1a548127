import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ArticleLibrary } from '../../../src/articles/articles.js';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../../helpers/database.js';
import { freePort } from '../../helpers/ports.js';
import { collectOutput, untilHealthy } from '../../helpers/service-process.js';

/*
 * What the compiled service loads on first use rather than at start (the articles' Markdown
 * renderer, site/routes/articles.tsx) answers right on the very first request of a fresh process,
 * and as many requests at once as come: the same HTML as the renderer makes of the article.
 */

const run = promisify(execFile);
const SLUG = 'quand-les-points-sont-ils-credites';

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** The article's body as the page carries it. */
function articleBody(html: string): string | undefined {
  const start = html.indexOf('<div class="article-body">');
  if (start < 0) return undefined;
  const end = html.indexOf('</div><section aria-labelledby="sources">', start);
  return html.slice(start + '<div class="article-body">'.length, end < 0 ? undefined : end);
}

describe('the compiled service, cold: what loads on first use', () => {
  let db: TestDatabase | undefined;
  let dataDir: string | undefined;
  let child: ChildProcess | undefined;
  let port: number;

  beforeAll(async () => {
    const env: Record<string, string> = {};
    if (TEST_DB === 'postgres') {
      db = await openTestDatabase();
      await db.database.close();
      env.DATABASE_URL = db.url as string;
    } else {
      dataDir = await mkdtemp(join(tmpdir(), 'stages-cold-'));
      await run('tar', ['xf', inject('pgliteTemplate'), '-C', dataDir]);
      env.DATA_DIR = dataDir;
    }
    port = await freePort();
    child = spawn(process.execPath, ['dist/server.js'], {
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await untilHealthy(child, port, collectOutput(child));
  }, 90_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited(child);
    }
    await db?.dispose();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("answers the first requests for an article, all at once, with the article's Markdown rendered", async () => {
    const article = (await ArticleLibrary.load()).get(SLUG);
    expect(article).toBeDefined();
    const expected = new MarkdownIt({ html: false, linkify: true }).render(article?.body ?? '');
    expect(expected).toContain('<h2');

    const answers = await Promise.all(
      [1, 2, 3].map(() => fetch(`http://127.0.0.1:${port}/articles/${SLUG}`, { headers: { accept: 'text/html' } })),
    );
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(articleBody(await res.text())).toBe(expected);
    }
    const missing = await fetch(`http://127.0.0.1:${port}/articles/nope`, { headers: { accept: 'text/html' } });
    expect(missing.status).toBe(404);
  });
});
