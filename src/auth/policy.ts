/** Access-token lifetime (spec.md §5.4, §8). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

/** The only scope: reading public data. It grants nothing else, anywhere. */
export const READ_SCOPE = 'read';

/** Accepted clock difference between instances when checking exp and nbf. */
export const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * How long an instance serves its cached key set before re-reading it in the background, so
 * that a rotation made elsewhere (the CLI, another instance) reaches every instance.
 */
export const KEY_REFRESH_SECONDS = 60;

/**
 * A rotated-out key keeps verifying (and stays in the JWKS) this long after the rotation: the
 * lifetime of the last token it signed, plus the time instances may keep signing with it before
 * their refresh sees the rotation, plus the clock tolerance, with a margin.
 */
export const KEY_RETIREMENT_GRACE_SECONDS =
  ACCESS_TOKEN_LIFETIME_SECONDS + 2 * KEY_REFRESH_SECONDS + CLOCK_TOLERANCE_SECONDS + 150;
