/**
 * A circuit breaker for a dependency that may hang rather than fail. A stopped (not killed) Redis
 * keeps its TCP connection open and never answers: every command then waits for its timeout, and
 * every request pays that wait. After `threshold` consecutive failures the breaker opens: calls fail
 * at once, without asking, for `openMs`. Then one call at a time is sent as a probe; the first
 * success closes the breaker, a failure keeps it open for another `openMs`.
 */
export type BreakerState = 'closed' | 'open';

export interface BreakerOptions {
  /** Consecutive failures that open the breaker. */
  threshold: number;
  /** How long an open breaker refuses before letting a probe through. */
  openMs: number;
  /** A call taking longer counts as failed (its late answer is ignored). */
  timeoutMs: number;
  now?: () => number;
  onChange?: (state: BreakerState) => void;
}

export class CircuitOpenError extends Error {
  readonly code = 'CIRCUIT_OPEN';
  constructor(what: string) {
    super(`${what} is not answering; not asked until the circuit breaker probes again`);
  }
}

export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private current: BreakerState = 'closed';
  private readonly now: () => number;

  constructor(
    private readonly what: string,
    private readonly options: BreakerOptions,
  ) {
    this.now = options.now ?? (() => performance.now());
  }

  get state(): BreakerState {
    return this.current;
  }

  /**
   * Runs `call` (a callback-style operation) unless the breaker is open. An open breaker answers at
   * once; once `openMs` has passed, it also starts one probe in the background, so that no caller
   * waits on a dependency that may still hang.
   */
  run<T>(call: (done: (err: Error | null, result?: T) => void) => void, done: (err: Error | null, result?: T) => void) {
    if (this.current === 'open') {
      if (!this.probing && this.now() - this.openedAt >= this.options.openMs) {
        this.probing = true;
        this.attempt(call, () => {});
      }
      done(new CircuitOpenError(this.what));
      return;
    }
    this.attempt(call, done);
  }

  private attempt<T>(
    call: (done: (err: Error | null, result?: T) => void) => void,
    done: (err: Error | null, result?: T) => void,
  ) {
    let settled = false;
    const finish = (err: Error | null, result?: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) this.failed();
      else this.succeeded();
      done(err, result);
    };
    // When the timer fires, an answer may already be waiting in the socket, unread because the
    // event loop was busy (a loaded server). Decide after the poll phase has read it (setImmediate),
    // so that a slow process is never mistaken for a hung dependency.
    const timer = setTimeout(
      () => setImmediate(() => finish(new Error(`${this.what} did not answer within ${this.options.timeoutMs} ms`))),
      this.options.timeoutMs,
    );
    try {
      call(finish);
    } catch (err) {
      finish(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Closes the breaker: the dependency is known to answer again (it reconnected). */
  reset(): void {
    this.succeeded();
  }

  private succeeded(): void {
    this.failures = 0;
    this.probing = false;
    if (this.current !== 'closed') this.set('closed');
  }

  private failed(): void {
    this.failures++;
    const wasProbe = this.probing;
    this.probing = false;
    if (wasProbe || this.failures >= this.options.threshold) {
      this.openedAt = this.now();
      if (this.current !== 'open') this.set('open');
    }
  }

  private set(state: BreakerState): void {
    this.current = state;
    this.options.onChange?.(state);
  }
}
