/** The first retry waits about this long; each later one twice as long as the one before. */
export const RETRY_BASE_MS = 15_000;
/** No retry waits longer than this. */
export const RETRY_CAP_MS = 3_600_000;

/**
 * How long to wait before the next try of a job whose `attempt`th try (1-based) just failed:
 * exponential (15 s, 30 s, 1 min, … capped at an hour), with "equal jitter" — between half and
 * all of that — so that the jobs a mail server's outage failed together do not all come back in
 * the same second once it returns.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
