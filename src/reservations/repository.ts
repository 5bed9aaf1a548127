/*
 * Reservations in the database: booking (one place taken and the reservation stored, or
 * neither), private links, cancellation, the centre's and operator's reads and status changes,
 * and the purge of personal data. One file an operation; this one gathers them.
 */

export type { Reason } from './form.js';
export * from './repository/book.js';
export * from './repository/by-email.js';
export * from './repository/cancel.js';
export * from './repository/change.js';
export * from './repository/contact.js';
export * from './repository/course-of.js';
export * from './repository/held-place.js';
export * from './repository/links.js';
export * from './repository/list.js';
export * from './repository/paid.js';
export * from './repository/personal-data.js';
export * from './repository/purge.js';
export * from './repository/rows.js';
export * from './repository/status.js';
