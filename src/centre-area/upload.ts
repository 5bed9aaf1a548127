import type { FastifyRequest } from 'fastify';
import { type AreaImportFormat, FORMATS } from './import-page.js';

/** The multipart limits of the import's upload form: one file, a few short fields. */
export const uploadLimits = (maxFileBytes: number) => ({
  fileSize: maxFileBytes,
  files: 1,
  fields: 4,
  parts: 6,
  fieldNameSize: 64,
  fieldSize: 256,
  headerPairs: 20,
});

/** The upload form's fields, and its file read whole, or why it could not be read. */
export type Upload =
  | {
      kind: 'read';
      fields: Record<string, string>;
      /** The file part, when the form had one (a browser sends an empty one when no file was chosen). */
      file?: { name: string; type: string; bytes: Buffer; tooBig: boolean };
    }
  | { kind: 'refused'; status: 400 | 413; reason: 'files' | 'fields' | 'unreadable' };

/**
 * Reads a multipart form to its end (so that the browser, still sending, reads the answer): its
 * fields (a field sent twice keeps its first value) and its one file, held to the limits given to
 * @fastify/multipart. A file over the size limit is read to its end and dropped (`tooBig`).
 */
export async function readUpload(request: FastifyRequest): Promise<Upload> {
  const fields: Record<string, string> = {};
  let file: { name: string; type: string; bytes: Buffer; tooBig: boolean } | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (!(part.fieldname in fields) && typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of part.file) chunks.push(chunk as Buffer);
      const tooBig = part.file.truncated;
      file = {
        name: part.filename ?? '',
        type: part.mimetype ?? '',
        bytes: tooBig ? Buffer.alloc(0) : Buffer.concat(chunks),
        tooBig,
      };
    }
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'FST_FILES_LIMIT') return { kind: 'refused', status: 413, reason: 'files' };
    if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT')
      return { kind: 'refused', status: 413, reason: 'fields' };
    // A malformed body (no boundary, cut short, a field named like a prototype property): busboy's
    // and the plugin's own errors, never the application's.
    if (err instanceof Error) return { kind: 'refused', status: 400, reason: 'unreadable' };
    throw err;
  }
  return { kind: 'read', fields, ...(file ? { file } : {}) };
}

const BY_EXTENSION: Record<string, AreaImportFormat> = { csv: 'csv', json: 'json', ndjson: 'ndjson', jsonl: 'ndjson' };
const BY_TYPE: Record<string, AreaImportFormat> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/json': 'json',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
};

/** The file's format: the one chosen in the form, else its name's extension, else its declared type. */
export function uploadFormat(chosen: string | undefined, name: string, type: string): AreaImportFormat | undefined {
  if (chosen && chosen in FORMATS) return chosen as AreaImportFormat;
  const extension = /\.([A-Za-z0-9]{1,8})$/.exec(name)?.[1]?.toLowerCase();
  if (extension && extension in BY_EXTENSION) return BY_EXTENSION[extension];
  return BY_TYPE[type.split(';')[0]?.trim().toLowerCase() ?? ''];
}

/** A file's text, read as UTF-8 with or without its byte-order mark; undefined when it is not valid UTF-8. */
export function utf8Text(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
}
