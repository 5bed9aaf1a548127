/*
 * The places model. A session's group (its capacity) is shared by two sellers: this service, whose
 * bookings hold places (`heldHere`: reservations not cancelled, and active agent holds,
 * src/agent-holds/; only a booking, a cancellation, a hold or
 * a cancelled session moves it), and the centre, which sells the rest through its own channels.
 * What is on sale here (`spotsAvailable`) is the centre's figure less the bookings made here that
 * the figure does not know of.
 *
 * A centre's absolute figure (PUT, PATCH, an import, its area) is the places left as its own system
 * counts them, and `heldHere` in the same write says how many bookings made here that count already
 * includes: the number it read with the figure (a GET, an export), or what its system recorded from
 * our notices. Absent, it is 0: a system that never hears of them. Each booking is thus subtracted
 * exactly once — by the centre if its count holds it, here if not — and a stale figure can neither
 * put a booked place back on sale nor take away one freed by a cancellation since.
 *
 * The database holds the invariant whatever the writer: spots_available + held_here <= capacity
 * (CHECK stage_sessions_places_held), and a booking takes a place only where spots_available > 0.
 */

/** A centre's absolute figure, and how many bookings made here it already counts. */
export interface CentreFigure {
  spotsAvailable: number;
  heldHere?: number | undefined;
}

/** The places on sale once the figure is set against the bookings held here now. */
export function placesOnSale(figure: CentreFigure, heldNow: number): number {
  const counted = figure.heldHere ?? 0;
  return Math.max(0, figure.spotsAvailable - (heldNow - counted));
}

/** Whether the figure fits the group: what it leaves for sale plus the bookings it counts. */
export function figureFits(figure: CentreFigure, capacity: number): boolean {
  return figure.spotsAvailable + (figure.heldHere ?? 0) <= capacity;
}
