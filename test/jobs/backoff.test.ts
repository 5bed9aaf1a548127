import { describe, expect, it } from 'vitest';
import { RETRY_CAP_MS, retryDelayMs } from '../../src/jobs/backoff.js';
import { errorSummary, PermanentJobError } from '../../src/jobs/errors.js';

describe('retry backoff', () => {
  it('doubles from 15 s up to an hour, jittered between half and all of it', () => {
    const ceilings = [15, 30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600].map((s) => s * 1000);
    ceilings.forEach((ceiling, i) => {
      expect(retryDelayMs(i + 1, () => 1)).toBe(ceiling);
      expect(retryDelayMs(i + 1, () => 0)).toBe(ceiling / 2);
      expect(retryDelayMs(i + 1, () => 0.5)).toBe(ceiling * 0.75);
    });
    expect(retryDelayMs(1000, () => 1)).toBe(RETRY_CAP_MS);
  });

  it('spreads jobs that failed together', () => {
    let seed = 1;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const delays = new Set(Array.from({ length: 50 }, () => retryDelayMs(3, random)));
    expect(delays.size).toBeGreaterThan(40);
  });
});

describe('what is kept of a failure', () => {
  it('is the class, code and status, never the message', () => {
    const smtp = Object.assign(new Error('550 <eloise@example.org>: mailbox unavailable'), {
      code: 'EENVELOPE',
      responseCode: 550,
    });
    expect(errorSummary(smtp)).toBe('Error:EENVELOPE:550');
    expect(errorSummary(new TypeError('x is eloise@example.org'))).toBe('TypeError');
    expect(errorSummary('a string')).toBe('NonError');
    expect(errorSummary(new PermanentJobError('BadMailPayload'))).toBe('BadMailPayload');
  });
});
