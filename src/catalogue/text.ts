/** Folds case, accents and punctuation so that "saint etienne" matches "Saint-Étienne". */
export function searchKey(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/œ/g, 'oe')
    .replace(/æ/g, 'ae')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** URL-friendly form of a name: "Saint-Étienne Centre" → "saint-etienne-centre". */
export function slugify(text: string): string {
  return searchKey(text).replace(/ /g, '-');
}
