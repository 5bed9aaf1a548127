import type { Registry } from 'prom-client';
import type { EventStreams } from './event-streams.js';

/** The change streams' counts and bytes, read at scrape time (nothing on the streaming path). */
export async function registerEventMetrics(registry: Registry, streams: EventStreams): Promise<void> {
  // Only called when metrics are on, so prom-client is already loaded.
  const { Counter, Gauge } = await import('prom-client');
  new Gauge({
    name: 'stages_events_streams',
    help: 'Open change streams (GET /api/stages/events).',
    registers: [registry],
    collect() {
      this.set(streams.stats().streams);
    },
  });
  new Gauge({
    name: 'stages_events_buffered_bytes',
    help: 'Bytes the open change streams have not sent yet, summed over streams (socket buffers and the shared feed behind each).',
    registers: [registry],
    collect() {
      this.set(streams.stats().bufferedBytes);
    },
  });
  new Gauge({
    name: 'stages_events_feed_bytes',
    help: 'Bytes of change events held once for all streams, until the slowest open stream has sent them.',
    registers: [registry],
    collect() {
      this.set(streams.stats().feedBytes);
    },
  });
  new Counter({
    name: 'stages_events_overflow_total',
    help: 'Change streams the server ended because their client did not keep up, by reason (too_slow: its own bound; server_busy: the budget of all streams).',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, n] of Object.entries(streams.stats().ended)) this.inc({ reason }, n);
    },
  });
}
