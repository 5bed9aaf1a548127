import type { ComponentChildren } from 'preact';
import { formatPrice } from '../catalogue/price.js';
import type { CatalogueSnapshot, SessionEntry } from '../catalogue/read-model.js';
import { UUID } from '../core/uuid.js';
import { frenchDate, frenchDayMonth, hours, spotsLeftText } from './format.js';
import { KeptMarkup, keptList } from './kept-markup.js';

export function sessionPath(id: string): string {
  return `/stages/${id}`;
}

/** The session a /stages/:id address names, in any case; undefined when the id is not one. */
export function sessionAt(snapshot: CatalogueSnapshot, id: string): SessionEntry | undefined {
  return UUID.test(id) ? snapshot.sessionsById.get(id.toLowerCase()) : undefined;
}

export function centrePath(slug: string): string {
  return `/centres/${encodeURIComponent(slug)}`;
}

export function departmentPath(code: string): string {
  return `/departements/${code}`;
}

/** Where a centre is, on OpenStreetMap. */
export function MapLink({ lat, lng }: { lat: number; lng: number }) {
  return (
    <p>
      <a href={`https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}#map=17/${lat}/${lng}`}>
        Voir l’emplacement sur OpenStreetMap
      </a>
    </p>
  );
}

export function SpotsLeft({ spots }: { spots: number }) {
  const kind = spots <= 0 ? 'places full' : spots <= 5 ? 'places few' : 'places';
  return <span class={kind}>{spotsLeftText(spots)}</span>;
}

/** What a session's card in a list shows: date, times, town, centre, price and spots left, linking to its page. */
function SessionCard({ entry, showCentre }: { entry: SessionEntry; showCentre: boolean }) {
  const s = entry.view;
  const c = s.centre;
  return (
    <>
      <h3>
        <a href={sessionPath(s.id)}>{frenchDate(s.day1)}</a>
      </h3>
      <p>
        et {frenchDayMonth(s.day2)}, {hours(entry)}
      </p>
      {showCentre ? (
        <p>
          {c.city} ({c.deptCode}) · {c.name}
        </p>
      ) : null}
      <p class="meta">
        <span class="price">{formatPrice(s.priceEuros)}</span>
        <SpotsLeft spots={s.spotsAvailable} />
      </p>
    </>
  );
}

// Results, department and centre pages list the same sessions again and again: each card is kept
// per entry (a changed session is a new entry), with its centre and without, ~1 KB a card.
const CARDS_BYTES = 2 * 1024 * 1024;
const cardsWithCentre = new KeptMarkup<SessionEntry>(CARDS_BYTES);
const cardsWithoutCentre = new KeptMarkup<SessionEntry>(CARDS_BYTES / 2);

export function SessionList({
  entries,
  showCentre = true,
}: {
  entries: readonly SessionEntry[];
  showCentre?: boolean;
}) {
  return keptList({
    tag: 'ol',
    attrs: { class: 'sessions' },
    cache: showCentre ? cardsWithCentre : cardsWithoutCentre,
    items: entries,
    // One session: its card, and the link to its page.
    render: (entry) => (
      <li class="session">
        <SessionCard entry={entry} showCentre={showCentre} />
      </li>
    ),
  });
}

/** Previous / next links; `href(page)` builds each page's address. */
export function Pager({ page, hasNext, href }: { page: number; hasNext: boolean; href: (page: number) => string }) {
  if (page <= 1 && !hasNext) return null;
  return (
    <nav class="pager" aria-label="Pages de résultats">
      {page > 1 ? (
        <a href={href(page - 1)} rel="prev">
          ← Page précédente
        </a>
      ) : (
        <span />
      )}
      <span>Page {page}</span>
      {hasNext ? (
        <a href={href(page + 1)} rel="next">
          Page suivante →
        </a>
      ) : (
        <span />
      )}
    </nav>
  );
}

export interface PagedSessionsProps {
  title: string;
  entries: readonly SessionEntry[];
  showCentre?: boolean;
  /** Shown instead of the list when there is no session: what else to look at. */
  empty: ComponentChildren;
  page: number;
  hasNext: boolean;
  /** The page's own path; other pages add `?page=`. */
  path: string;
}

/** A page's sessions under their heading, a page at a time. */
export function PagedSessions({ title, entries, showCentre = true, empty, page, hasNext, path }: PagedSessionsProps) {
  return (
    <section aria-labelledby="sessions">
      <h2 id="sessions">{title}</h2>
      {entries.length ? <SessionList entries={entries} showCentre={showCentre} /> : empty}
      <Pager page={page} hasNext={hasNext} href={(p) => (p > 1 ? `${path}?page=${p}` : path)} />
    </section>
  );
}
