import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BREAKER_THRESHOLD } from '../../../src/http/rate-limit.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { startRedis, stopRedis } from '../../helpers/redis.js';

// The hardening suite's own port range (4500–4599); one port per test file and project.
const PORT = process.env.TEST_DB === 'postgres' ? 4562 : 4561;
const IP = '192.0.2.80';

let redis: ChildProcess;
let t: TestApp;
beforeAll(async () => {
  redis = await startRedis(PORT);
  t = await buildTestApp({
    env: { RATE_LIMIT: 'on', RATE_LIMIT_ANONYMOUS: '1000', REDIS_URL: `redis://127.0.0.1:${PORT}` },
  });
});
afterAll(async () => {
  await t?.close();
  await stopRedis(redis);
});

const health = async () => (await t.app.inject('/api/health')).json().rateLimit?.status;
const stages = () => t.app.inject({ url: '/api/stages?limit=1', remoteAddress: IP });
async function until(ok: () => Promise<boolean>, tries = 200) {
  for (let i = 0; i < tries && !(await ok()); i++) await new Promise((r) => setTimeout(r, 50));
}

describe('a Redis that hangs (SIGSTOP), not just one that is gone', () => {
  it('opens the circuit breaker after a few timeouts, reports down, serves unlimited, and comes back after SIGCONT', {
    timeout: 60_000,
  }, async () => {
    await until(async () => (await health()) === 'up');
    expect(await health()).toBe('up');
    const before = await stages();
    expect(before.statusCode).toBe(200);
    expect(before.headers['ratelimit-remaining']).toBe('999');

    redis.kill('SIGSTOP');
    try {
      // The connection stays open and nothing answers: a few requests wait for the timeout,
      // then the breaker opens and requests are let through without asking Redis.
      for (let i = 0; i < BREAKER_THRESHOLD; i++) expect((await stages()).statusCode).toBe(200);
      expect(await health()).toBe('down');
      const during = await Promise.all(Array.from({ length: 50 }, () => stages()));
      expect(during.every((r) => r.statusCode === 200)).toBe(true);
      expect(await health()).toBe('down');
    } finally {
      redis.kill('SIGCONT');
    }

    // A background probe finds Redis again; counting resumes where Redis left it.
    await until(async () => {
      await stages();
      return (await health()) === 'up';
    });
    expect(await health()).toBe('up');
    const after = await stages();
    expect(after.statusCode).toBe(200);
    expect(Number(after.headers['ratelimit-remaining'])).toBeLessThan(999);
  });
});
