import { StringDecoder } from 'node:string_decoder';
import { ImportRefused } from './records.js';

/** An import's bytes as they arrive: a request body or a file stream. */
export type ImportSource = AsyncIterable<Buffer | string>;

export function bodyTooLarge(maxBytes: number): ImportRefused {
  const mb = maxBytes / (1024 * 1024);
  return new ImportRefused(
    413,
    'body_too_large',
    `The import is larger than ${Number.isInteger(mb) ? `${mb} MB` : `${maxBytes} bytes`}, the most one import takes (IMPORT_MAX_MB); nothing was written.`,
  );
}

/**
 * The text of an import, decoded as its bytes arrive (a character split between two chunks is
 * kept whole), refused with 413 as soon as it passes `maxBytes`. Nothing but the current chunk is
 * held: the parsers take the text a chunk at a time and keep only the record they are reading.
 */
export async function* textOf(source: ImportSource, maxBytes = Number.POSITIVE_INFINITY): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let bytes = 0;
  for await (const chunk of source) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    bytes += buffer.length;
    if (bytes > maxBytes) throw bodyTooLarge(maxBytes);
    const text = decoder.write(buffer);
    if (text) yield text;
  }
  const rest = decoder.end();
  if (rest) yield rest;
}
