const euros = new Intl.NumberFormat('fr-FR', { style: 'currency', currency: 'EUR' });

/** A price as people in France read it: "239,00 €". */
export function formatPrice(value: number): string {
  return euros.format(value);
}
