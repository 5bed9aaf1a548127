/*
 * The one wording of a price, wherever the service prints one (the site, the emails, the REST
 * availability message, the MCP tools' text): "239 €" when whole, "229,50 €" otherwise, with the
 * no-break space French puts before the sign. Here, below every door, so that all of them can use it.
 */

import { LruCache, stringBytes } from '../core/lru-cache.js';

const euros = new Intl.NumberFormat('fr-FR', { style: 'currency', currency: 'EUR' });
const wholeEuros = new Intl.NumberFormat('fr-FR', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 });

// Intl formatting costs microseconds a call and a results page prints dozens of prices; a
// catalogue has few distinct ones, so each wording is computed once.
const byCents = new LruCache<number, string>(256 * 1024, (_cents, text) => 16 + stringBytes(text));

/** A price in euros as people in France read it: "239 €", "229,50 €". */
export function formatPrice(euro: number): string {
  // In cents: 229.5 and 229.50000001 are the same price.
  const cents = Math.round(euro * 100);
  let text = byCents.get(cents);
  if (text === undefined) {
    text = cents % 100 === 0 ? wholeEuros.format(cents / 100) : euros.format(cents / 100);
    byCents.set(cents, text);
  }
  return text;
}
