/**
 * How long a « Prévenez-moi » alert takes to reach its person once a place frees up, as a person
 * lives it: starts the compiled service (embedded database in a temporary directory, its worker
 * polling as in production, JOBS_POLL_MS 1000) with an SMTP server of its own; for each round, a
 * session is made full (a booking, then the centre's places set to none through the partner API),
 * an alert is asked on its page and confirmed from the email, then a place frees up — by turns the
 * booking cancelled from its private link, and the centre adding a place — and the time until the
 * alert's email arrives is measured. The promise: within 60 seconds, once.
 *
 *   npm run build && npx tsx bench/drills/alert-delay.ts        (ALERT_DRILL_ROUNDS, default 10)
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

const PORT = 4630;
const SMTP_PORT = 4631;
const ROUNDS = Number(process.env.ALERT_DRILL_ROUNDS ?? 10);
const base = `http://127.0.0.1:${PORT}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Mail {
  to: string;
  subject: string;
  text: string;
  at: number;
}
const mails: Mail[] = [];

function env(dataDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(PORT),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: base,
    DATA_DIR: dataDir,
    SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}`,
    LOG_LEVEL: 'error',
    RATE_LIMIT: 'off',
    SHUTDOWN_GRACE_SECONDS: '0',
  };
}

async function start(dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: env(dataDir),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 600; i++) {
    const up = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return child;
    await sleep(100);
  }
  throw new Error('the service did not start');
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** A page's cookie and the hidden fields of its form posting to `action`. */
async function formOn(path: string, action: string, cookie?: string) {
  const page = await fetch(`${base}${path}`, { headers: cookie ? { cookie } : {} });
  const set = page.headers.get('set-cookie');
  const jar = cookie ?? String(set).split(';')[0];
  const html = await page.text();
  const form = new RegExp(`<form[^>]*action="${action.replace(/[?]/g, '\\?')}[^"]*"[^>]*>([\\s\\S]*?)</form>`).exec(
    html,
  )?.[1];
  if (!form) throw new Error(`no form to ${action} on ${path}`);
  const hidden: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
    hidden[m[1] as string] = (m[2] as string).replaceAll('&amp;', '&');
  return { cookie: jar as string, hidden };
}

async function post(path: string, cookie: string, fields: Record<string, string>) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams(fields).toString(),
  });
}

async function waitForMail(to: string, subject: RegExp, after: number, timeoutMs: number): Promise<Mail> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; ) {
    const found = mails.find((m) => m.to === to && subject.test(m.subject) && m.at >= after);
    if (found) return found;
    await sleep(20);
  }
  throw new Error(`no email "${subject}" to ${to} within ${timeoutMs} ms`);
}

async function main(): Promise<void> {
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      simpleParser(stream).then((m) => {
        const to = session.envelope.rcptTo[0]?.address ?? '';
        mails.push({ to, subject: m.subject ?? '', text: m.text ?? '', at: Date.now() });
        done();
      }, done);
    },
  });
  await new Promise<void>((r) => smtp.listen(SMTP_PORT, '127.0.0.1', r));
  const dataDir = await mkdtemp(join(tmpdir(), 'alert-drill-'));
  let child = await start(dataDir);
  // An operator key, made by the command line while the embedded database is free.
  await stop(child);
  const created = execFileSync(
    process.execPath,
    ['dist/cli/index.js', 'apikey:create', '--role', 'admin', '--name', 'drill'],
    {
      env: env(dataDir),
    },
  ).toString();
  const key = /sk_[A-Za-z0-9_-]+/.exec(created)?.[0];
  if (!key) throw new Error(`no key in: ${created}`);
  child = await start(dataDir);
  const admin = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  const list = await (await fetch(`${base}/api/stages?limit=100&dept=69`)).json();
  const sessions = (list.data as { id: string; spotsAvailable: number }[]).filter((s) => s.spotsAvailable >= 2);
  const delays: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const session = sessions[round];
      if (!session) throw new Error('not enough sessions with places in the demo catalogue');
      // A booking, then no place left on sale: full.
      const booking = await formOn(`/stages/${session.id}`, `/stages/${session.id}/reservation`);
      const booked = await post(`/stages/${session.id}/reservation`, booking.cookie, {
        ...booking.hidden,
        website: '',
        firstName: 'Drill',
        lastName: 'Essai',
        email: `booker-${round}@example.org`,
        phone: '06 12 34 56 78',
        reason: 'voluntary',
        consent: 'yes',
      });
      if (booked.status !== 303) throw new Error(`booking refused: ${booked.status}`);
      const privatePath = new URL(String(booked.headers.get('location')), base).pathname;
      const left = (await (await fetch(`${base}/api/stages/${session.id}`)).json()).spotsAvailable as number;
      const emptied = await fetch(`${base}/api/admin/sessions/${session.id}/places`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ change: -left }),
      });
      if (!emptied.ok) throw new Error(`places change refused: ${emptied.status} ${await emptied.text()}`);
      await sleep(200); // the read model applies the change
      // The alert, asked on the full session's page and confirmed from its email.
      const watcher = `watcher-${round}@example.org`;
      const ask = await formOn(`/stages/${session.id}`, '/alertes');
      const asked = await post('/alertes', ask.cookie, { ...ask.hidden, email: watcher });
      if (asked.status >= 400) throw new Error(`alert refused: ${asked.status}`);
      const confirmation = await waitForMail(watcher, /./, 0, 10_000);
      const confirmPath = new URL(
        /https?:\/\/\S+\/alertes\/confirmer\/[A-Za-z0-9_-]+/.exec(confirmation.text)?.[0] as string,
      ).pathname;
      const confirm = await formOn(confirmPath, confirmPath);
      const confirmed = await post(confirmPath, confirm.cookie, confirm.hidden);
      if (confirmed.status >= 400) throw new Error(`confirmation refused: ${confirmed.status}`);
      // A place frees up: by turns a cancellation and a centre adding one.
      const freedAt = Date.now();
      if (round % 2 === 0) {
        const cancel = await formOn(privatePath, `${privatePath}/annulation`, booking.cookie);
        const res = await post(`${privatePath}/annulation`, booking.cookie, cancel.hidden);
        if (res.status !== 303) throw new Error(`cancel refused: ${res.status}`);
      } else {
        const res = await fetch(`${base}/api/admin/sessions/${session.id}/places`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ change: 1 }),
        });
        if (!res.ok) throw new Error(`place added refused: ${res.status}`);
      }
      const told = await waitForMail(watcher, /libérée/, freedAt, 60_000);
      delays.push(told.at - freedAt);
      console.log(
        `round ${round + 1} (${round % 2 === 0 ? 'cancellation' : 'centre adds a place'}): email after ${told.at - freedAt} ms`,
      );
    }
    await sleep(3000);
    const told = (to: string) => mails.filter((m) => m.to === to && /libérée/.test(m.subject)).length;
    const twice = delays.map((_, round) => told(`watcher-${round}@example.org`)).filter((n) => n !== 1).length;
    const sorted = [...delays].sort((a, b) => a - b);
    console.log(
      `${delays.length} alerts: p50 ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms; alerts told other than once: ${twice}`,
    );
    if (twice > 0) process.exitCode = 1;
  } finally {
    await stop(child);
    smtp.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
