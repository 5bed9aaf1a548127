import { createHash } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { releaseBytes } from '../core/release-bytes.js';
import type { Db } from '../db/database.js';
import { templateKey } from '../db/pglite-template.js';
import { CATALOGUE_READ_SHAPE, loadCatalogue, readCatalogueStamp, type StoredCatalogue } from './repository.js';

/*
 * A copy of the whole catalogue as loadCatalogue read it, kept in a file beside the embedded
 * database so that a restart reads one file (about 60 ms for the demo's 20,000 sessions) instead of
 * every session through PGlite (0.7 s of CPU, and PGlite's WebAssembly memory grown by tens of MB for
 * good). It is used only when it names the very state the database is in: the stamp it was read with
 * (the catalogue's version and its last change's time, to the microsecond, which every write to
 * centres or sessions moves) equal to the database's now, and the same build's reads and schema
 * (the shape key). Anything else, or a file cut short, and the caller reads the database as before.
 */
/** Where the embedded database in `dataDir` has its catalogue kept between runs. */
export const catalogueCopyIn = (dataDir: string): string => join(dataDir, 'stages-catalogue.json');

/** The file's first line; then one line per centre, then one per session, each a JSON text. */
interface CopyHeader {
  key: string;
  stamp: string;
  version: number;
  updatedAt: string;
  centres: number;
  sessions: number;
}

let shapeKey: string | undefined;
/** This build's reads and schema (PGlite's version and every migration), as one short hash. */
function currentKey(): string {
  shapeKey ??= createHash('sha256').update(CATALOGUE_READ_SHAPE).update(templateKey()).digest('hex').slice(0, 32);
  return shapeKey;
}

const NEWLINE = 0x0a;

/**
 * The copy in `file` when it is this build's and holds the catalogue at `stamp`; otherwise undefined.
 * Read line by line out of the file's bytes: one JSON text of the whole would be a string of twice
 * the file's size (the centres' accented names make it two bytes a character), which the heap keeps
 * until its next full collection, about 20 MB of a restart's RSS.
 */
export async function readStoredCopy(file: string, stamp: string): Promise<StoredCatalogue | undefined> {
  if (stamp === 'none') return undefined;
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    return undefined; // none yet: the database is read instead
  }
  try {
    let start = 0;
    const nextLine = (): unknown => {
      const end = bytes.indexOf(NEWLINE, start);
      if (end < 0) throw new Error('cut short');
      const line = JSON.parse(bytes.toString('utf8', start, end)) as unknown;
      start = end + 1;
      return line;
    };
    const header = nextLine() as CopyHeader;
    if (header.stamp !== stamp || header.key !== currentKey()) return undefined;
    const centres: StoredCatalogue['centres'] = [];
    for (let i = 0; i < header.centres; i++) centres.push(nextLine() as StoredCatalogue['centres'][number]);
    const sessions: StoredCatalogue['sessions'] = [];
    for (let i = 0; i < header.sessions; i++) sessions.push(nextLine() as StoredCatalogue['sessions'][number]);
    if (start !== bytes.length) return undefined;
    return { version: header.version, updatedAt: new Date(header.updatedAt), stamp, centres, sessions };
  } catch {
    return undefined; // cut short or not JSON: the database is read instead
  } finally {
    releaseBytes(bytes); // the file's megabytes, otherwise kept until the next full collection
  }
}

/**
 * Writes `stored` to `file` whole or not at all (a file beside it, renamed over it), readable by its
 * owner only: the centres' contact details are in it, as in the database.
 */
export async function writeStoredCopy(file: string, stored: StoredCatalogue): Promise<void> {
  const header: CopyHeader = {
    key: currentKey(),
    stamp: stored.stamp,
    version: stored.version,
    updatedAt: stored.updatedAt.toISOString(),
    centres: stored.centres.length,
    sessions: stored.sessions.length,
  };
  // JSON.stringify escapes every line break inside a value: each record is one line.
  const lines = [header, ...stored.centres, ...stored.sessions].map((record) => `${JSON.stringify(record)}\n`);
  const partial = `${file}.${process.pid}.partial`;
  try {
    await writeFile(partial, lines.join(''), { mode: 0o600 });
    await rename(partial, file);
  } finally {
    await rm(partial, { force: true });
  }
}

/**
 * The catalogue for a first build: the stored copy when it holds the database's current state,
 * otherwise the database's, then written to the copy (`warn` told when it cannot be). Returns the
 * stamp the copy holds afterwards.
 */
export async function readWithCopy(
  db: Db,
  file: string,
  warn: (err: unknown) => void,
): Promise<{ catalogue: StoredCatalogue; copyStamp: string | undefined }> {
  const kept = await readStoredCopy(file, await readCatalogueStamp(db));
  if (kept) return { catalogue: kept, copyStamp: kept.stamp };
  const catalogue = await loadCatalogue(db);
  try {
    await writeStoredCopy(file, catalogue);
    return { catalogue, copyStamp: catalogue.stamp };
  } catch (err) {
    warn(err);
    return { catalogue, copyStamp: undefined };
  }
}

/**
 * The copy brought up to the database's state unless it holds it already (`copyStamp`, the stamp it
 * was written or read with; undefined when unknown). Never rejects: `warn` is told why it could not.
 */
export async function keepCopyCurrent(
  db: Db,
  file: string,
  copyStamp: string | undefined,
  warn: (err: unknown) => void,
): Promise<void> {
  try {
    if ((await readCatalogueStamp(db)) === copyStamp) return;
    await writeStoredCopy(file, await loadCatalogue(db));
  } catch (err) {
    warn(err);
  }
}
