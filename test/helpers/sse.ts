import { type ClientRequest, get, type IncomingMessage } from 'node:http';

export interface SseEvent {
  event?: string;
  data?: string;
  id?: string;
  comment?: string;
  retry?: string;
}

/** Parses whole event blocks (separated by a blank line) off the front of `buffer`; returns the rest. */
function parseBlocks(buffer: string, events: SseEvent[]): string {
  let rest = buffer;
  let cut = rest.indexOf('\n\n');
  while (cut >= 0) {
    const event: SseEvent = {};
    for (const line of rest.slice(0, cut).split('\n')) {
      if (line.startsWith(':')) event.comment = line.slice(1).trim();
      else {
        const at = line.indexOf(':');
        event[line.slice(0, at) as keyof SseEvent] = line.slice(at + 1).replace(/^ /, '');
      }
    }
    events.push(event);
    rest = rest.slice(cut + 2);
    cut = rest.indexOf('\n\n');
  }
  return rest;
}

/**
 * An EventSource-style reader (blocks separated by a blank line, fields per line) over a socket of
 * its own, so that closing it leaves no pooled connection behind. `silent` opens the stream and
 * reads nothing until `read()`: the client's buffers fill and its socket stops reading, as a
 * subscriber that never reads does. An incomplete last block is dropped, as EventSource drops it.
 */
export async function openStream(url: string, options: { headers?: Record<string, string>; silent?: boolean } = {}) {
  const events: SseEvent[] = [];
  let buffer = '';
  let request: ClientRequest | undefined;
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    request = get(url, { agent: false, headers: { accept: 'text/event-stream', ...options.headers } }, resolve);
    request.on('error', reject);
  });
  const ended = new Promise<void>((resolve) => {
    res.on('close', () => resolve());
    res.on('error', () => resolve());
  });
  const read = () => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer = parseBlocks(buffer + chunk, events);
    });
  };
  if (!options.silent) read();
  return {
    res: { status: res.statusCode, headers: { get: (name: string) => res.headers[name] as string | undefined } },
    events,
    /** The `session` events' data, each with the id its block carried. */
    sessions: () =>
      events.filter((e) => e.event === 'session').map((e) => ({ ...JSON.parse(e.data as string), lastId: e.id })),
    /** The id an EventSource would send on reconnecting: the last one received. */
    lastEventId: () => events.findLast((e) => e.id !== undefined)?.id,
    read,
    async until(ok: (events: SseEvent[]) => boolean, ms = 3000) {
      const end = Date.now() + ms;
      while (!ok(events)) {
        if (Date.now() > end)
          throw new Error(`stream condition not met in ${ms} ms: ${JSON.stringify(events.slice(-5))}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close() {
      request?.destroy();
      return ended;
    },
    ended,
  };
}
