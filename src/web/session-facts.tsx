import type { ComponentChildren } from 'preact';
import { formatPrice } from '../catalogue/price.js';
import type { SessionEntry } from '../catalogue/read-model.js';
import { centrePath } from './components.js';
import { frenchDate, hours } from './format.js';
import { type KeptMarkup, kept } from './kept-markup.js';

export interface SessionFactsProps {
  entry: SessionEntry;
  /** Said after the hours: "les deux jours", and more where the page has room. */
  hoursNote: string;
  /** The price's class, where the page highlights it. */
  priceClass?: string | undefined;
  /** Facts a page adds (the spots left, say), between the price and the course number. */
  children?: ComponentChildren;
}

/** A session's two days, hours, price and course number, as a list of facts. */
export function SessionFacts({ entry, hoursNote, priceClass, children }: SessionFactsProps) {
  const s = entry.view;
  return (
    <dl class="facts">
      <dt>1er jour</dt>
      <dd>{frenchDate(s.day1)}</dd>
      <dt>2e jour</dt>
      <dd>{frenchDate(s.day2)}</dd>
      <dt>Horaires</dt>
      <dd>
        {hours(entry)}, {hoursNote}
      </dd>
      <dt>Prix</dt>
      <dd class={priceClass}>{formatPrice(s.priceEuros)}</dd>
      {children}
      <dt>Numéro du stage</dt>
      <dd>{entry.record.courseNumber}</dd>
    </dl>
  );
}

/** The centre of a session: its name (linking to its page) and address, then what the page adds. */
export function CentreSection({
  centre,
  keptIn,
  children,
}: {
  centre: SessionEntry['view']['centre'];
  /** Where its markup is kept per centre, when what the page adds depends on the centre alone. */
  keptIn?: KeptMarkup<SessionEntry['view']['centre']>;
  children?: ComponentChildren;
}) {
  const content = () => (
    <>
      <h2 id="centre">Le centre</h2>
      <div class="card">
        <h3>
          <a href={centrePath(centre.slug)}>{centre.name}</a>
        </h3>
        <p>
          {centre.address}
          <br />
          {centre.postalCode} {centre.city}
        </p>
        {children}
      </div>
    </>
  );
  const attrs = { 'aria-labelledby': 'centre' };
  if (keptIn) return kept({ tag: 'section', attrs, cache: keptIn, of: centre, render: content });
  return <section {...attrs}>{content()}</section>;
}
