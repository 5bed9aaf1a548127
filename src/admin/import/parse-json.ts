import { Pacer } from './pace.js';
import {
  type ImportLimits,
  type ImportRecord,
  MAX_RECORD_CHARS,
  malformed,
  recordTooLong,
  tooManyRecords,
} from './records.js';

/*
 * A JSON import read one record at a time: a scan finds where each record's text begins and ends
 * (tracking only strings and brackets), and each record is parsed on its own. The document is
 * never built whole, so a body of millions of tiny records is refused at record
 * IMPORT_MAX_RECORDS + 1 without reading the rest, and no single parse runs long.
 */

export const JSON_SHAPE =
  'A JSON import is {"centres": [...], "sessions": [...]} or an array of records each with a "type".';
const NOT_JSON = 'The body is not valid JSON.';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The index of the quote that closes the string opened at `open`. */
function stringEnd(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) throw malformed(NOT_JSON);
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
}

/** Where the value starting at `start` ends; its content is left to JSON.parse. */
function valueEnd(text: string, start: number, where: () => string): number {
  let depth = 0;
  for (let at = start; at < text.length; at++) {
    if (at - start > MAX_RECORD_CHARS) throw recordTooLong(where());
    const c = text.charCodeAt(at);
    if (c === QUOTE) {
      at = stringEnd(text, at);
      if (at - start > MAX_RECORD_CHARS) throw recordTooLong(where());
      if (depth === 0) return at + 1;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth === 0) return at;
      if (--depth === 0) return at + 1;
    } else if (depth === 0 && (c === COMMA || isSpace(c))) return at;
  }
  return text.length;
}

class JsonRecords {
  private at = 0;
  private readonly pacer = new Pacer();
  readonly records: ImportRecord[] = [];

  constructor(
    private readonly text: string,
    private readonly limits: ImportLimits,
  ) {}

  async read(): Promise<ImportRecord[]> {
    this.skipSpace();
    const first = this.text.charCodeAt(this.at);
    if (first === OPEN_ARRAY) await this.array(undefined);
    else if (first === OPEN_OBJECT) await this.object();
    else {
      // A lone value: JSON or not, it is no import.
      this.parse(this.text, () => NOT_JSON);
      throw malformed(JSON_SHAPE);
    }
    this.skipSpace();
    if (this.at < this.text.length) throw malformed(NOT_JSON);
    return this.records;
  }

  /** `{"centres": [...], "sessions": [...]}`, either or both, in any order. */
  private async object(): Promise<void> {
    this.at++;
    this.skipSpace();
    if (this.take(CLOSE_OBJECT)) return;
    do {
      this.skipSpace();
      if (this.text.charCodeAt(this.at) !== QUOTE) throw malformed(NOT_JSON);
      const end = stringEnd(this.text, this.at) + 1;
      const key = this.parse(this.text.slice(this.at, end), () => NOT_JSON);
      this.at = end;
      this.skipSpace();
      if (!this.take(COLON)) throw malformed(NOT_JSON);
      this.skipSpace();
      if ((key !== 'centres' && key !== 'sessions') || this.text.charCodeAt(this.at) !== OPEN_ARRAY)
        throw malformed(JSON_SHAPE);
      await this.array(key === 'centres' ? 'centre' : 'session');
      this.skipSpace();
    } while (this.take(COMMA));
    if (!this.take(CLOSE_OBJECT)) throw malformed(NOT_JSON);
  }

  /** The records of an array: of one kind (`type` given), or each with its own `type`. */
  private async array(type: 'centre' | 'session' | undefined): Promise<void> {
    this.at++;
    this.skipSpace();
    if (this.take(CLOSE_ARRAY)) return;
    do {
      if (this.records.length === this.limits.maxRecords) throw tooManyRecords(this.limits.maxRecords);
      this.skipSpace();
      const index = this.records.length;
      const where = () => `Record ${index}`;
      const end = valueEnd(this.text, this.at, where);
      const item = this.parse(this.text.slice(this.at, end), () => `${NOT_JSON} Record ${index} cannot be read.`);
      this.at = end;
      this.records.push(type ? { index, type, data: objectOf(item) } : typedRecord(index, item));
      this.skipSpace();
      await this.pacer.tick();
    } while (this.take(COMMA));
    if (!this.take(CLOSE_ARRAY)) throw malformed(NOT_JSON);
  }

  private parse(text: string, message: () => string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      throw malformed(message());
    }
  }

  private skipSpace(): void {
    while (isSpace(this.text.charCodeAt(this.at))) this.at++;
  }

  private take(c: number): boolean {
    if (this.text.charCodeAt(this.at) !== c) return false;
    this.at++;
    return true;
  }
}

/** Reads a JSON import into records (not yet checked), refusing it past `limits.maxRecords`. */
export function parseJsonRecords(text: string, limits: ImportLimits): Promise<ImportRecord[]> {
  return new JsonRecords(text, limits).read();
}

function typedRecord(index: number, item: unknown): ImportRecord {
  const { type, ...data } = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
  return { index, type: typeof type === 'string' ? type : undefined, data };
}

function objectOf(item: unknown): Record<string, unknown> {
  return typeof item === 'object' && item !== null && !Array.isArray(item) ? { ...(item as object) } : { '': item };
}
