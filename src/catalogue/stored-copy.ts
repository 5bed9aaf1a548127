import { createHash } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { templateKey } from '../db/pglite-template.js';
import { CATALOGUE_READ_SHAPE, type StoredCatalogue } from './repository.js';

/**
 * A copy of the whole catalogue as loadCatalogue read it, kept in a file beside the embedded
 * database so that a restart reads one file (about 60 ms for the demo's 20,000 sessions) instead of
 * every session through PGlite (0.7 s of CPU, and PGlite's WebAssembly memory grown by tens of MB for
 * good). It is used only when it names the very state the database is in: the stamp it was read with
 * (the catalogue's version and its last change's time, to the microsecond, which every write to
 * centres or sessions moves) equal to the database's now, and the same build's reads and schema
 * (the shape key). Anything else, or a file cut short, and the caller reads the database as before.
 */
interface CopyFile {
  key: string;
  stamp: string;
  version: number;
  updatedAt: string;
  centres: StoredCatalogue['centres'];
  sessions: StoredCatalogue['sessions'];
}

let shapeKey: string | undefined;
/** This build's reads and schema (PGlite's version and every migration), as one short hash. */
function currentKey(): string {
  shapeKey ??= createHash('sha256').update(CATALOGUE_READ_SHAPE).update(templateKey()).digest('hex').slice(0, 32);
  return shapeKey;
}

/** The copy in `file` when it is this build's and holds the catalogue at `stamp`; otherwise undefined. */
export async function readStoredCopy(file: string, stamp: string): Promise<StoredCatalogue | undefined> {
  let copy: CopyFile;
  try {
    copy = JSON.parse(await readFile(file, 'utf8')) as CopyFile;
  } catch {
    return undefined; // none yet, or unreadable: the database is read instead
  }
  if (stamp === 'none' || copy.stamp !== stamp || copy.key !== currentKey()) return undefined;
  if (!Array.isArray(copy.centres) || !Array.isArray(copy.sessions)) return undefined;
  return {
    version: copy.version,
    updatedAt: new Date(copy.updatedAt),
    stamp: copy.stamp,
    centres: copy.centres,
    sessions: copy.sessions,
  };
}

/**
 * Writes `stored` to `file` whole or not at all (a file beside it, renamed over it), readable by its
 * owner only: the centres' contact details are in it, as in the database.
 */
export async function writeStoredCopy(file: string, stored: StoredCatalogue): Promise<void> {
  const copy: CopyFile = {
    key: currentKey(),
    stamp: stored.stamp,
    version: stored.version,
    updatedAt: stored.updatedAt.toISOString(),
    centres: stored.centres,
    sessions: stored.sessions,
  };
  const partial = `${file}.${process.pid}.partial`;
  try {
    await writeFile(partial, JSON.stringify(copy), { mode: 0o600 });
    await rename(partial, file);
  } finally {
    await rm(partial, { force: true });
  }
}
