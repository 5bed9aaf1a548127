import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether the process is shutting down: health answers 503 `draining`, connections are closed after each answer. */
    readonly lifecycle: Lifecycle;
  }
}

export interface Lifecycle {
  readonly draining: boolean;
  startDraining(): void;
  /** Calls `listener` once when draining starts (at once if it has): long-lived answers end there. */
  onDrain(listener: () => void): void;
}

/**
 * The draining flag. While it is up, every answer says `Connection: close` (set with the other
 * headers of every response, http/security-headers.ts), so that each keep-alive client reconnects
 * (to another instance) after its current answer instead of having its socket reset under it.
 */
export function registerLifecycle(app: FastifyInstance): void {
  let draining = false;
  const listeners: (() => void)[] = [];
  app.decorate('lifecycle', {
    get draining() {
      return draining;
    },
    startDraining() {
      if (draining) return;
      draining = true;
      for (const listener of listeners.splice(0)) {
        try {
          listener();
        } catch (err) {
          app.log.warn({ err }, 'a drain listener failed');
        }
      }
    },
    onDrain(listener: () => void) {
      if (draining) listener();
      else listeners.push(listener);
    },
  });
}

export interface ShutdownOptions {
  /** How long to keep accepting and answering (health saying `draining`) before closing the listener. */
  graceMs: number;
  /** The whole shutdown's budget; past it the process exits with status 1. */
  timeoutMs: number;
  /** Closes what the app does not own (the database), after the last answer. */
  afterClose: () => Promise<void>;
  exit?: (code: number) => void;
}

/**
 * Stops the service without failing a request that reached it:
 * 1. health answers 503 `draining` at once, so that load balancers stop sending;
 * 2. for `graceMs`, everything is still answered, each answer with `Connection: close`, so that
 *    every client that was mid-conversation gets its answer and then reconnects elsewhere;
 * 3. the listener closes; in-flight answers finish (flushed to the socket byte for byte);
 *    sockets with nothing in flight are closed; then the database, then exit 0.
 */
export function gracefulShutdown(app: FastifyInstance, options: ShutdownOptions): (signal: string) => Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let started = false;
  return async (signal) => {
    if (started) return;
    started = true;
    app.lifecycle.startDraining();
    app.log.info({ signal, graceMs: options.graceMs }, 'shutting down: draining');
    const force = setTimeout(() => {
      app.log.error({ timeoutMs: options.timeoutMs }, 'shutdown did not finish in time; exiting');
      exit(1);
    }, options.timeoutMs);
    force.unref();
    try {
      if (options.graceMs > 0) await new Promise((resolve) => setTimeout(resolve, options.graceMs));
      await app.close();
      await options.afterClose();
      clearTimeout(force);
      app.log.info('shut down cleanly');
      exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      exit(1);
    }
  };
}
