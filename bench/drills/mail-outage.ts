/**
 * Mail server down, instance killed, mail server back: starts the compiled service (embedded
 * database in a temporary directory, or DATABASE_URL) with SMTP_URL pointing at a port where
 * nothing listens, books places through the site's form, checks the emails wait in the outbox
 * (metrics), kills the service with SIGKILL, starts it again, then starts an SMTP server on that
 * port and waits for the queue to empty. The promise being checked: every queued email arrives,
 * exactly once, after an outage and a crash.
 *
 *   npm run drill:mail        (MAIL_DRILL_BOOKINGS, default 5)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

const PORT = 4620;
const SMTP_PORT = 4621;
const METRICS_PORT = 4622;
const BOOKINGS = Number(process.env.MAIL_DRILL_BOOKINGS ?? 5);
const base = `http://127.0.0.1:${PORT}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function start(dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: base,
      DATA_DIR: dataDir,
      METRICS_PORT: String(METRICS_PORT),
      SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}`,
      LOG_LEVEL: 'error',
      RATE_LIMIT: 'off',
      SHUTDOWN_GRACE_SECONDS: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    await sleep(200);
  }
  throw new Error('the service did not start');
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{kind="mail"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

async function book(sessionId: string, n: number): Promise<number> {
  await (await fetch(`${base}/stages/${sessionId}`)).arrayBuffer();
  const fields = {
    website: '',
    firstName: 'Drill',
    lastName: `Essai ${String.fromCharCode(65 + (n % 26))}`,
    email: `drill-${n}@example.org`,
    phone: '06 12 34 56 78',
    reason: 'voluntary',
    consent: 'yes',
  };
  const res = await fetch(`${base}/stages/${sessionId}/reservation`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams(fields).toString(),
  });
  if (res.status !== 303) console.log((await res.text()).match(/class="notice[^>]*>([^<]*)/)?.[1] ?? res.status);
  return res.status;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mail-drill-'));
  let child = await start(dataDir);
  try {
    const list = (await (await fetch(`${base}/api/stages?limit=${BOOKINGS}`)).json()) as { data: { id: string }[] };
    const statuses = await Promise.all(list.data.map((s, i) => book(s.id, i)));
    console.log(`bookings answered: ${statuses.join(' ')} (303 = booked), with the mail server down`);
    await sleep(2000);
    const queued = await metric('jobs_pending');
    console.log(`emails waiting in the outbox: ${queued}; failed tries so far: ${await metric('jobs_failures_total')}`);

    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    console.log('service killed (SIGKILL); starting it again');
    child = await start(dataDir);
    console.log(`emails waiting after the restart: ${await metric('jobs_pending')}`);

    const received: string[] = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, done) {
        simpleParser(stream).then(
          (m) => {
            received.push(`${(Array.isArray(m.to) ? m.to[0] : m.to)?.text} | ${m.subject}`);
            done();
          },
          (err) => done(err),
        );
      },
    });
    await new Promise<void>((r) => smtp.listen(SMTP_PORT, '127.0.0.1', r));
    const upAt = performance.now();
    console.log('mail server up');
    while ((await metric('jobs_pending')) > 0 && performance.now() - upAt < 10 * 60_000) await sleep(500);
    const seconds = ((performance.now() - upAt) / 1000).toFixed(1);
    await sleep(1000);
    smtp.close();
    const distinct = new Set(received).size;
    console.log(
      `delivered ${received.length} emails (${distinct} distinct) ${seconds} s after the mail server came back`,
    );
    const ok = received.length === queued && distinct === queued && queued > 0;
    console.log(ok ? 'OK: every queued email arrived, once' : 'FAILED: emails lost or doubled');
    process.exitCode = ok ? 0 : 1;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
