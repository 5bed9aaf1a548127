export interface ProbeResult {
  up: boolean;
  latencyMs?: number;
}

/**
 * A database probe that a flood of /api/health calls cannot multiply: one round trip at a time
 * (concurrent calls share it), and a success reused for `ttlMs`. Ten thousand calls a second cost
 * one query a second. A failure is not reused, so that recovery shows at the next call; while the
 * database is down, calls still share one probe at a time.
 */
export function cachedProbe(probe: () => Promise<void>, ttlMs: number, onDown: (err: unknown) => void) {
  let last: { at: number; result: ProbeResult } | undefined;
  let inflight: Promise<ProbeResult> | undefined;
  return (): Promise<ProbeResult> => {
    if (last && performance.now() - last.at < ttlMs) return Promise.resolve(last.result);
    inflight ??= (async () => {
      const started = performance.now();
      let result: ProbeResult;
      try {
        await probe();
        result = { up: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
      } catch (err) {
        onDown(err);
        result = { up: false };
      }
      last = result.up ? { at: performance.now(), result } : undefined;
      inflight = undefined;
      return result;
    })();
    return inflight;
  };
}
