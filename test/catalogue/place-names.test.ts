import { describe, expect, it } from 'vitest';
import { resolveCommune, resolveOrigin, SearchArgumentError } from '../../src/catalogue/locations.js';

/*
 * Places as language models and people write them in `near`: a trailing country, a postal code
 * with the name, a department or region after it, misspellings, names shortened. Each resolves to
 * one commune only when the text singles it out or that commune clearly dominates; otherwise the
 * error lists the candidates, each with a `near` value that names it alone.
 */

type Expected = { found: string } | { candidates: string[] };

// [what is typed, the commune ("Name (dept)") or the first candidates in order]
const TABLE: [string, Expected][] = [
  // The README's and docs' own examples.
  ['Villeurbanne', { found: 'Villeurbanne (69)' }],
  ['St Etienne', { found: 'Saint-Étienne (42)' }],
  ['saint-étienne', { found: 'Saint-Étienne (42)' }],
  ['Lyon 3e', { found: 'Lyon 3e Arrondissement (69)' }],
  ['Paris 15e', { found: 'Paris 15e Arrondissement (75)' }],
  ['Marseille 8e', { found: 'Marseille 8e Arrondissement (13)' }],
  ['69100', { found: 'Villeurbanne (69)' }],
  ['69266', { found: 'Villeurbanne (69)' }],
  // A trailing country.
  ['Villeurbanne, France', { found: 'Villeurbanne (69)' }],
  ['Nice, France', { found: 'Nice (06)' }],
  ['Bordeaux France', { found: 'Bordeaux (33)' }],
  ['Strasbourg, FR', { found: 'Strasbourg (67)' }],
  ['Lyon, France métropolitaine', { found: 'Lyon (69)' }],
  // …but a name that ends with it stays whole.
  ['Roissy-en-France', { found: 'Roissy-en-France (95)' }],
  // A postal code with the name, either side.
  ['69100 Villeurbanne', { found: 'Villeurbanne (69)' }],
  ['Villeurbanne 69100', { found: 'Villeurbanne (69)' }],
  ['Villeurbanne (69100)', { found: 'Villeurbanne (69)' }],
  ['Paris, 75015', { found: 'Paris 15e Arrondissement (75)' }],
  ['Bastia 20200', { found: 'Bastia (2B)' }],
  // A postal code that does not exist still places the name in its department.
  ['Lyon 69000', { found: 'Lyon (69)' }],
  // A department (code or name) or a region after the name.
  ['Saint-Denis 93', { found: 'Saint-Denis (93)' }],
  ['Saint-Denis (974)', { found: 'Saint-Denis (974)' }],
  ['Saint-Denis 97400', { found: 'Saint-Denis (974)' }],
  ['Saint-Denis, La Réunion', { found: 'Saint-Denis (974)' }],
  ['Saint-Denis, Seine-Saint-Denis', { found: 'Saint-Denis (93)' }],
  ['Toulouse (31)', { found: 'Toulouse (31)' }],
  ['Lille 59', { found: 'Lille (59)' }],
  ['Ajaccio 2A', { found: 'Ajaccio (2A)' }],
  ['Montpellier, Hérault', { found: 'Montpellier (34)' }],
  ['Clermont (Oise)', { found: 'Clermont (60)' }],
  ['Clermont 60', { found: 'Clermont (60)' }],
  ['Rennes, Bretagne', { found: 'Rennes (35)' }],
  ['Lyon, Auvergne-Rhône-Alpes', { found: 'Lyon (69)' }],
  // Misspellings.
  ['Grenble', { found: 'Grenoble (38)' }],
  ['Marseile', { found: 'Marseille (13)' }],
  ['Villeurbane', { found: 'Villeurbanne (69)' }],
  ['villeurbane 69', { found: 'Villeurbanne (69)' }],
  ['Toulouze', { found: 'Toulouse (31)' }],
  ['Saint-Etien', { found: 'Saint-Étienne (42)' }],
  // Exact names that need nothing else.
  ['Clermont-Ferrand', { found: 'Clermont-Ferrand (63)' }],
  ['Mont de marsan', { found: 'Mont-de-Marsan (40)' }],
  ['Pointe-a-Pitre', { found: 'Pointe-à-Pitre (971)' }],
  // A shortened name that one town clearly dominates.
  ['Vitry', { found: 'Vitry-sur-Seine (94)' }],
  // Several places bear the name: La Réunion's 153,000 against Seine-Saint-Denis' 113,000.
  ['Saint-Denis', { candidates: ['Saint-Denis (974)', 'Saint-Denis (93)'] }],
  ['Saint Denis, France', { candidates: ['Saint-Denis (974)', 'Saint-Denis (93)'] }],
  // How people shorten Clermont-Ferrand, and the Clermonts of Oise and Landes: never a silent guess.
  ['Clermont', { candidates: ['Clermont-Ferrand (63)', 'Clermont (60)'] }],
  ['Aix', { candidates: ['Aix-en-Provence (13)', 'Aix-les-Bains (73)'] }],
  ['Boulogne', { candidates: ['Boulogne-Billancourt (92)', 'Boulogne-sur-Mer (62)'] }],
  ['Beaumont', { candidates: ['Beaumont (63)'] }],
];

const label = (c: { name: string; deptCode: string }) => `${c.name} (${c.deptCode})`;

describe('near as it is typed', () => {
  it.each(TABLE)('%s', (typed, expected) => {
    if ('found' in expected) {
      expect(label(resolveCommune(typed, 'near').commune)).toBe(expected.found);
      return;
    }
    const err = (() => {
      try {
        resolveCommune(typed, 'near');
      } catch (e) {
        return e;
      }
      throw new Error(`"${typed}" resolved to one place`);
    })();
    expect(err).toBeInstanceOf(SearchArgumentError);
    const candidates = (err as SearchArgumentError).candidates ?? [];
    expect(candidates.slice(0, expected.candidates.length).map(label)).toEqual(expected.candidates);
    // Each candidate's `near` names it alone, and the message offers it to the model.
    for (const c of candidates) {
      expect(label(resolveCommune(c.near, 'near').commune)).toBe(label(c));
      expect((err as Error).message).toContain(`"${c.near}"`);
    }
  });

  it('says how a name not written literally was read, with the other places it could be', () => {
    expect(resolveOrigin('Grenble').label).toBe('Grenoble (38, Isère) (« Grenble » lu comme Grenoble)');
    const vitry = resolveOrigin('Vitry').label;
    expect(vitry).toMatch(/^Vitry-sur-Seine \(94, Val-de-Marne\) \(« Vitry » lu comme Vitry-sur-Seine ; autres lieux/);
    expect(vitry).toContain('Vitry-le-François (51, Marne)');
    // The literal name of one commune needs no note.
    expect(resolveOrigin('Villeurbanne, France').label).toBe('Villeurbanne (69, Rhône)');
  });

  it('an unknown place is still refused, suggesting names that begin the same way', () => {
    expect(() => resolveCommune('Xyzzyxyzzy', 'near')).toThrow(/unknown place "Xyzzyxyzzy"/);
    expect(() => resolveCommune('Blabla', 'near')).toThrow(/unknown place "Blabla"/);
  });
});
