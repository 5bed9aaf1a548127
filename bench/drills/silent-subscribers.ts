/**
 * Silent subscribers: change streams that never read, from many loopback addresses (within the
 * per-address cap), while bulk imports change thousands of sessions one after another. Prints the
 * server's RSS and the health endpoint's latency before, during and after each import, and the
 * change-stream metrics where the service has them.
 *
 *   npm run build && npx tsx bench/drills/silent-subscribers.ts
 *
 * SILENT_STREAMS (200), SILENT_PER_ADDRESS (5: the service's default cap), SILENT_IMPORTS (5),
 * SILENT_SESSIONS (4999: just under the read model's delta limit, so that each import reaches the
 * streams as session events, not one reset), SILENT_PORT (4630; metrics on the next port),
 * SILENT_SERVICE_DIR (a checkout with dist/ built: another version of the service).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { publicHolidays } from '../../src/catalogue/demo/holidays.js';

const STREAMS = Number(process.env.SILENT_STREAMS ?? 200);
const PER_ADDRESS = Number(process.env.SILENT_PER_ADDRESS ?? 5);
const IMPORTS = Number(process.env.SILENT_IMPORTS ?? 5);
const SESSIONS = Number(process.env.SILENT_SESSIONS ?? 4999);
const PORT = Number(process.env.SILENT_PORT ?? 4630);
const DIR = resolve(process.env.SILENT_SERVICE_DIR ?? '.');
const BASE = `http://127.0.0.1:${PORT}`;
const CENTRE_ID = '7a1e0000-0000-4000-8000-000000000001';

const dataDir = mkdtempSync(join(tmpdir(), 'silent-subscribers-'));
const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: String(PORT), HOST: '127.0.0.1' };

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return Math.round(Number(line?.[1] ?? 0) / 1024);
}

async function healthMs(): Promise<number> {
  const started = performance.now();
  await fetch(`${BASE}/api/health`, { signal: AbortSignal.timeout(60_000) }).then((r) => r.arrayBuffer());
  return performance.now() - started;
}

/** A stream opened from 127.0.0.x that reads its answer's first bytes, then never reads again. */
function silentStream(i: number): Promise<Socket> {
  const localAddress = `127.0.0.${2 + Math.floor(i / PER_ADDRESS)}`;
  return new Promise((ok, fail) => {
    const socket = connect({ host: '127.0.0.1', port: PORT, localAddress }, () =>
      socket.write(`GET /api/stages/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`),
    );
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      const status = chunk.toString('latin1', 0, 12);
      if (status === 'HTTP/1.1 200') ok(socket);
      else fail(new Error(`stream ${i} from ${localAddress}: ${status}`));
    });
    socket.once('error', fail);
  });
}

/** First days from January 2027 on: Monday to Thursday, neither day a public holiday. */
function courseDays(count: number): string[] {
  const days: string[] = [];
  const day = new Date(Date.UTC(2027, 0, 4));
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  while (days.length < count) {
    const next = new Date(day.getTime() + 86_400_000);
    const holiday = (d: Date) => publicHolidays(d.getUTCFullYear()).has(iso(d));
    if (day.getUTCDay() >= 1 && day.getUTCDay() <= 4 && !holiday(day) && !holiday(next)) days.push(iso(day));
    day.setUTCDate(day.getUTCDate() + 1);
  }
  return days;
}

/** 4,999 sessions of one centre, their prices moved by `round` so that every import changes them all. */
function importBody(round: number): string {
  const centre = {
    id: CENTRE_ID,
    slug: 'drill-silent-villeurbanne',
    name: 'Drill Villeurbanne',
    address: '12 rue Francis de Pressensé',
    city: 'Villeurbanne',
    postalCode: '69100',
    deptCode: '69',
    lat: 45.7719,
    lng: 4.8902,
    agrementNumber: 'R2406900999',
  };
  const days = courseDays(Math.ceil(SESSIONS / 4));
  const sessions = Array.from({ length: SESSIONS }, (_, i) => ({
    id: `7a1e0001-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
    centreId: CENTRE_ID,
    courseNumber: `R2406900999-${i}`,
    day1: days[Math.floor(i / 4)],
    startTime: ['08:00', '08:30', '09:00', '09:30'][i % 4],
    endTime: '16:30',
    priceEuros: 200 + round + (i % 50),
    capacity: 20,
    spotsAvailable: 10,
  }));
  return JSON.stringify({ centres: [centre], sessions });
}

async function metrics(): Promise<string> {
  const text = await fetch(`http://127.0.0.1:${PORT + 1}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  return text
    .split('\n')
    .filter((l) => l.startsWith('stages_events_'))
    .join('; ');
}

async function main(): Promise<void> {
  const created = execFileSync(
    process.execPath,
    [join(DIR, 'dist/cli/index.js'), 'apikey:create', '--role', 'admin', '--name', 'drill'],
    {
      env,
      encoding: 'utf8',
    },
  );
  const key = created.match(/^\s+(\S{20,})$/m)?.[1];
  if (!key) throw new Error(`no key in: ${created}`);
  const child: ChildProcess = spawn(process.execPath, [join(DIR, 'dist/server.js')], {
    env: { ...env, METRICS_PORT: String(PORT + 1) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const pid = child.pid as number;
  try {
    for (
      let i = 0;
      !(await healthMs().then(
        () => true,
        () => false,
      ));
      i++
    ) {
      if (i > 300) throw new Error('the service did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const show = (label: string, rss: number, health: number, extra = '') =>
      console.log(
        `${label.padEnd(28)} RSS ${String(rss).padStart(5)} MB   health ${health.toFixed(1).padStart(7)} ms ${extra}`,
      );
    show('started', rssMb(pid), await healthMs());

    const sockets: Socket[] = [];
    for (let i = 0; i < STREAMS; i++) sockets.push(await silentStream(i));
    show(`${STREAMS} silent streams open`, rssMb(pid), await healthMs(), await metrics());

    let peak = 0;
    for (let round = 1; round <= IMPORTS; round++) {
      const body = importBody(round);
      let worstHealth = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, rssMb(pid));
          worstHealth = Math.max(worstHealth, await healthMs().catch(() => 60_000));
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const started = performance.now();
      const res = await fetch(`${BASE}/api/admin/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(600_000),
      });
      const answer = await res.text();
      if (!res.ok) throw new Error(`import ${round}: ${res.status} ${answer.slice(0, 500)}`);
      const took = performance.now() - started;
      await new Promise((r) => setTimeout(r, 1000));
      sampling = false;
      await sampler;
      peak = Math.max(peak, rssMb(pid));
      show(
        `import ${round} (${res.status}, ${(took / 1000).toFixed(1)} s)`,
        rssMb(pid),
        worstHealth,
        `(worst during)   ${await metrics()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 5000));
    show('5 s after the last import', rssMb(pid), await healthMs(), `peak RSS ${peak} MB   ${await metrics()}`);
    for (const s of sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 3000));
    show('3 s after the streams closed', rssMb(pid), await healthMs(), await metrics());
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
