/**
 * The read load of bench/load/scale.ts, in a process of its own so that autocannon's work does not
 * delay the change streams and writes the bench times. Receives one job over IPC, answers its
 * figures, exits.
 */
import autocannon from 'autocannon';

export interface ReadJob {
  url: string;
  paths: string[];
  connections: number;
  duration: number;
  /** Requests per second over all connections; unset: as fast as it goes. */
  rate?: number;
}

export interface ReadFigures {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  /** This reader's own CPU over the run, in % of one core. */
  cpuPercent: number;
}

process.once('message', async (job: ReadJob) => {
  let next = 0;
  const [cpu0, t0] = [process.cpuUsage(), performance.now()];
  const r = await autocannon({
    url: job.url,
    connections: job.connections,
    duration: job.duration,
    ...(job.rate ? { overallRate: job.rate } : {}),
    requests: [{ setupRequest: (req) => ({ ...req, path: job.paths[next++ % job.paths.length] as string }) }],
  });
  const cpu = process.cpuUsage(cpu0);
  const figures: ReadFigures = {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors,
    cpuPercent: ((cpu.user + cpu.system) / 1000 / (performance.now() - t0)) * 100,
  };
  process.send?.(figures, () => process.exit(0));
});
