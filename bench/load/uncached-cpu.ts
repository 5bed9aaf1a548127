/**
 * Server CPU per request on the 6,000 distinct uncached queries of `npm run bench`
 * (bench/load/varied-queries.ts), read from /proc for a service you started yourself:
 *
 *   PORT=39874 HOST=127.0.0.1 DATA_DIR=.bench-data RATE_LIMIT=off node dist/server.js &
 *   npx tsx bench/load/uncached-cpu.ts 39874 $!
 *
 * 500 requests warm it up (the first `near` loads the geography), then 50 connections for 10 s, as
 * fast as they go or, with UNCACHED_RATE, at that many requests per second in all (a fixed rate
 * compares builds at the same load). Prints the server's user and system CPU per request.
 *
 * UNCACHED_PAGE=session or search measures the site's uncached pages instead, as `npm run bench`
 * asks them: the page of the first bookable session in the Rhône, or `/?city=lyon`, each with a
 * distinct `_=<n>`.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { variedQueries } from './varied-queries.js';

const [port, pid] = [Number(process.argv[2]), Number(process.argv[3])];
const rate = process.env.UNCACHED_RATE ? Number(process.env.UNCACHED_RATE) : undefined;
/** The server's [user, system] CPU so far, in ms (clock ticks of 10 ms). */
const cpu = () => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return [Number(f[11]) * 10, Number(f[12]) * 10] as const;
};
const page = process.env.UNCACHED_PAGE;
const paths = variedQueries(6000);
if (page === 'session' || page === 'search') {
  const res = await fetch(`http://127.0.0.1:${port}/api/stages?dept=69&limit=1`);
  const first = ((await res.json()) as { data: { bookingUrl: string }[] }).data[0];
  if (!first) throw new Error('no session in the Rhône to benchmark');
  const path = page === 'session' ? `${new URL(first.bookingUrl).pathname}?` : '/?city=lyon&';
  // More distinct addresses than a run asks: none is asked twice.
  for (let i = 0; i < paths.length; i++) paths[i] = `${path}_=${i}`;
  for (let i = paths.length; i < 200_000; i++) paths.push(`${path}_=${i}`);
} else if (page !== undefined) throw new Error(`UNCACHED_PAGE: session or search, not ${page}`);
let n = 0;
// warm-up: the first near query loads the geography
await autocannon({
  url: `http://127.0.0.1:${port}`,
  connections: 10,
  amount: 500,
  requests: [{ setupRequest: (req) => ({ ...req, path: paths[n++ % paths.length] as string }) }],
});
const c0 = cpu();
const r = await autocannon({
  url: `http://127.0.0.1:${port}`,
  connections: 50,
  duration: 10,
  ...(rate ? { overallRate: rate } : {}),
  requests: [{ setupRequest: (req) => ({ ...req, path: paths[n++ % paths.length] as string }) }],
});
const c1 = cpu();
const perRequest = (ms: number) => ((ms * 1000) / r.requests.total).toFixed(0);
console.log(
  'req/s',
  r.requests.average,
  'p99 ms',
  r.latency.p99,
  'non2xx',
  r.non2xx,
  'server CPU µs/request: user',
  perRequest(c1[0] - c0[0]),
  'system',
  perRequest(c1[1] - c0[1]),
);
