import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      publicBaseUrl: 'http://localhost:3000',
      database: { kind: 'pglite', dataDir: './data' },
      demoCatalogue: true,
      logLevel: 'info',
    });
  });

  it('derives the public URL from the port and drops a trailing slash', () => {
    expect(loadConfig({ PORT: '8080' }).publicBaseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://api.example.fr/' }).publicBaseUrl).toBe('https://api.example.fr');
  });

  it('gives a Redis call 250 ms before it counts as not answering, unless RATE_LIMIT_REDIS_TIMEOUT_MS says', () => {
    expect(loadConfig({}).rateLimit.redisTimeoutMs).toBe(250);
    expect(loadConfig({ RATE_LIMIT_REDIS_TIMEOUT_MS: '1000' }).rateLimit.redisTimeoutMs).toBe(1000);
  });

  it('polls for due jobs every second, tries a job 12 times and keeps failed ones 7 days, unless JOBS_* say', () => {
    expect(loadConfig({}).jobs).toEqual({ pollMs: 1000, maxAttempts: 12, failedRetentionMs: 7 * 86_400_000 });
    const c = loadConfig({ JOBS_POLL_MS: '0', JOBS_MAX_ATTEMPTS: '3', JOBS_FAILED_RETENTION_DAYS: '30' });
    expect(c.jobs).toEqual({ pollMs: 0, maxAttempts: 3, failedRetentionMs: 30 * 86_400_000 });
  });

  it('holds a place for an agent 900 s, unless HOLD_TTL_SECONDS says (60 to 3600)', () => {
    expect(loadConfig({}).holds).toEqual({ ttlSeconds: 900 });
    expect(loadConfig({ HOLD_TTL_SECONDS: '600' }).holds).toEqual({ ttlSeconds: 600 });
    for (const bad of ['0', '59', '3601', 'quinze'])
      expect(() => loadConfig({ HOLD_TTL_SECONDS: bad })).toThrow(/HOLD_TTL_SECONDS/);
  });

  it('signals search and AI input but not training in robots.txt, unless CONTENT_SIGNAL says', () => {
    expect(loadConfig({}).contentSignal).toEqual({ search: 'yes', 'ai-input': 'yes', 'ai-train': 'no' });
    expect(loadConfig({ CONTENT_SIGNAL: 'ai-train=yes' }).contentSignal).toEqual({ 'ai-train': 'yes' });
    for (const bad of ['ai-train=maybe', 'train=no', 'search=yes;ai-train=no'])
      expect(() => loadConfig({ CONTENT_SIGNAL: bad })).toThrow(/^Invalid configuration:\n {2}CONTENT_SIGNAL: /);
  });

  it('takes imports of up to 50,000 records, unless IMPORT_MAX_RECORDS says', () => {
    expect(loadConfig({}).importMaxRecords).toBe(50_000);
    expect(loadConfig({ IMPORT_MAX_RECORDS: '100000' }).importMaxRecords).toBe(100_000);
  });

  it('bounds what change streams leave unsent: 1 MB each and 64 MB in all, within 16 KB–64 MB and 1–4096 MB', () => {
    expect(loadConfig({}).events).toMatchObject({ maxStreamBytes: 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 });
    const set = loadConfig({ EVENTS_STREAM_MAX_BUFFER_KB: '256', EVENTS_TOTAL_BUFFER_MB: '8' }).events;
    expect(set).toMatchObject({ maxStreamBytes: 256 * 1024, maxTotalBytes: 8 * 1024 * 1024 });
    for (const env of [
      { EVENTS_STREAM_MAX_BUFFER_KB: '15' },
      { EVENTS_STREAM_MAX_BUFFER_KB: '65537' },
      { EVENTS_STREAM_MAX_BUFFER_KB: '1.5' },
      { EVENTS_TOTAL_BUFFER_MB: '0' },
      { EVENTS_TOTAL_BUFFER_MB: '4097' },
    ])
      expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration:\\n  ${Object.keys(env)[0]}: `));
  });

  it('lets the heap grow by half between full collections once started, unless HEAP_GROWING_PERCENT says (0 to 300)', () => {
    expect(loadConfig({}).heapGrowingPercent).toBe(50);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '100' }).heapGrowingPercent).toBe(100);
    for (const bad of ['-1', '301', '12.5', 'half'])
      expect(() => loadConfig({ HEAP_GROWING_PERCENT: bad })).toThrow(
        /^Invalid configuration:\n {2}HEAP_GROWING_PERCENT: HEAP_GROWING_PERCENT must be a whole number from 0 to 300/,
      );
  });

  it('selects PostgreSQL with DATABASE_URL and turns the demo off with DEMO_CATALOGUE=false', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u@h/db', DEMO_CATALOGUE: 'false' });
    expect(c.database).toEqual({ kind: 'postgres', url: 'postgres://u@h/db' });
    expect(c.demoCatalogue).toBe(false);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PUBLIC_BASE_URL: 'not a url' }, 'PUBLIC_BASE_URL'],
    [{ PUBLIC_BASE_URL: 'ftp://x.fr' }, 'PUBLIC_BASE_URL'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DEMO_CATALOGUE: 'maybe' }, 'DEMO_CATALOGUE'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ RATE_LIMIT_REDIS_TIMEOUT_MS: '0' }, 'RATE_LIMIT_REDIS_TIMEOUT_MS'],
    [{ RATE_LIMIT_REDIS_TIMEOUT_MS: '3000000000' }, 'RATE_LIMIT_REDIS_TIMEOUT_MS'],
    [{ JOBS_POLL_MS: '10' }, 'JOBS_POLL_MS'],
    [{ JOBS_POLL_MS: '-1' }, 'JOBS_POLL_MS'],
    [{ JOBS_MAX_ATTEMPTS: '0' }, 'JOBS_MAX_ATTEMPTS'],
    [{ JOBS_FAILED_RETENTION_DAYS: '365' }, 'JOBS_FAILED_RETENTION_DAYS'],
    [{ IMPORT_MAX_RECORDS: '0' }, 'IMPORT_MAX_RECORDS'],
    [{ IMPORT_MAX_RECORDS: '1000001' }, 'IMPORT_MAX_RECORDS'],
  ])('rejects %o naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration:\\n  ${name}: `));
  });
});
