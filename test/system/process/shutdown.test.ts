import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../../helpers/database.js';
import { freePort } from '../../helpers/ports.js';
import { collectOutput, untilHealthy } from '../../helpers/service-process.js';

/*
 * The compiled service as operators run it (`npm start` → `node dist/server.js`), stopped by a
 * signal sent to the pid that `npm start` created, as a container runtime or process manager does.
 * `npm test` builds dist/ first.
 */

const run = promisify(execFile);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of `pid`'s children (one level), from /proc. */
async function childrenOf(pid: number): Promise<number[]> {
  const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(pid)]).catch(() => ({ stdout: '' }));
  return stdout
    .split('\n')
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Sends one raw HTTP/1.1 request on `socket` and resolves with everything read until the socket ends. */
function rawRequest(socket: Socket, path: string, options: { paused?: boolean } = {}) {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise<Buffer>((resolve, reject) => {
    socket.once('end', () => resolve(Buffer.concat(chunks)));
    socket.once('error', reject);
  });
  if (options.paused) socket.pause();
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`);
  return ended;
}

function body(raw: Buffer): { head: string; body: Buffer } {
  const at = raw.indexOf('\r\n\r\n');
  return { head: raw.subarray(0, at).toString('latin1'), body: raw.subarray(at + 4) };
}

async function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('stopping the compiled service with a signal', () => {
  let db: TestDatabase | undefined;
  let dataDir: string | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    if (TEST_DB === 'postgres') {
      db = await openTestDatabase();
      await db.database.close();
      env = { DATABASE_URL: db.url as string };
    } else {
      // The prepared template (migrated, demo catalogue) unpacked as a data directory.
      dataDir = await mkdtemp(join(tmpdir(), 'stages-shutdown-'));
      await run('tar', ['xf', inject('pgliteTemplate'), '-C', dataDir]);
      env = { DATA_DIR: dataDir };
    }
  });

  afterAll(async () => {
    await db?.dispose();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function start(command: 'npm' | 'node', extraEnv: Record<string, string> = {}) {
    const port = await freePort();
    const args = command === 'npm' ? ['start'] : ['dist/server.js'];
    const child = spawn(command, args, {
      env: {
        ...process.env,
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        RATE_LIMIT: 'off',
        SHUTDOWN_GRACE_SECONDS: '1',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = collectOutput(child);
    await untilHealthy(child, port, output);
    return { child, port, output };
  }

  it('SIGTERM to the npm pid drains: health 503 draining, answers finish whole, keep-alive closed cleanly, exit 0, nothing left', async () => {
    const { child, port, output } = await start('npm');
    const npmPid = child.pid as number;
    const descendants = await childrenOf(npmPid);
    // npm's shell became node (exec), run as docs/operations.md says: its young generation capped,
    // the C library's allocator in one pool unless the environment says otherwise.
    expect(descendants).toHaveLength(1);
    const proc = async (file: string) => (await readFile(`/proc/${descendants[0]}/${file}`, 'utf8')).split('\0');
    expect(await proc('cmdline')).toContain('--max-semi-space-size=4');
    expect(await proc('environ')).toContain(`MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX || '1'}`);
    const expected = await (await fetch(`http://127.0.0.1:${port}/api/stages?limit=100&includeUnavailable=true`))
      .arrayBuffer()
      .then((b) => Buffer.from(b));
    expect(expected.length).toBeGreaterThan(50_000);

    // A large answer that the client does not read yet, and an idle keep-alive connection.
    const slow = await openSocket(port);
    const slowAnswer = rawRequest(slow, '/api/stages?limit=100&includeUnavailable=true', { paused: true });
    const keepAlive = await openSocket(port);
    const firstOnKeepAlive = new Promise<void>((resolve) => keepAlive.once('data', () => resolve()));
    keepAlive.write('GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await firstOnKeepAlive;
    await new Promise((r) => setTimeout(r, 100));

    process.kill(npmPid, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 300));

    // Draining: load balancers are told at once, and the open connection gets `Connection: close`.
    const health = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { status: string }).status).toBe('draining');
    const secondOnKeepAlive = rawRequest(keepAlive, '/api/stages?dept=69&limit=1');
    const second = body(await secondOnKeepAlive);
    expect(second.head).toMatch(/^HTTP\/1\.1 200/);
    expect(second.head.toLowerCase()).toContain('connection: close');

    // The answer that was in flight arrives whole, byte for byte.
    slow.resume();
    const slowRaw = body(await slowAnswer);
    expect(slowRaw.head).toMatch(/^HTTP\/1\.1 200/);
    expect(slowRaw.body.equals(expected)).toBe(true);

    expect(await exited(child)).toBe(0);
    for (const pid of [npmPid, ...descendants]) expect(alive(pid), `pid ${pid} still running`).toBe(false);
    await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
    expect(output()).not.toMatch(/error/i);
  });

  it('SIGINT to the node process stops it gracefully too', async () => {
    const { child, port } = await start('node', { SHUTDOWN_GRACE_SECONDS: '0' });
    process.kill(child.pid as number, 'SIGINT');
    expect(await exited(child)).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
  });

  it('an invalid shutdown setting stops the start with a message naming it', async () => {
    const child = spawn('node', ['dist/server.js'], {
      env: { ...process.env, ...env, SHUTDOWN_TIMEOUT_SECONDS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (c) => {
      stderr += c;
    });
    expect(await exited(child)).toBe(78);
    expect(stderr).toContain('SHUTDOWN_TIMEOUT_SECONDS');
  });
});
