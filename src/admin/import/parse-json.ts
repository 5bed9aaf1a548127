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
 * A JSON import read one record at a time as it arrives: a scan finds where each record's text
 * begins and ends (tracking only strings and brackets), and each record is parsed on its own. The
 * scan works on a window of the text (what is left of the last chunk and the next one), so neither
 * the body nor the document is ever held whole: a body of millions of tiny records is refused at
 * record IMPORT_MAX_RECORDS + 1 without reading the rest, and no single parse runs long.
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

/** The index of the quote that closes the string opened at `open`; -1 if the window ends first. */
function stringEnd(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
}

/**
 * Where the value starting at `start` ends; -1 if the window ends first (a number at its very end
 * may go on in the next chunk). Its content is left to JSON.parse.
 */
function valueEnd(text: string, start: number, where: () => string): number {
  let depth = 0;
  for (let at = start; at < text.length; at++) {
    if (at - start > MAX_RECORD_CHARS) throw recordTooLong(where());
    const c = text.charCodeAt(at);
    if (c === QUOTE) {
      at = stringEnd(text, at);
      if (at < 0) break;
      if (at - start > MAX_RECORD_CHARS) throw recordTooLong(where());
      if (depth === 0) return at + 1;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth === 0) return at;
      if (--depth === 0) return at + 1;
    } else if (depth === 0 && (c === COMMA || isSpace(c))) return at;
  }
  if (text.length - start > MAX_RECORD_CHARS) throw recordTooLong(where());
  return -1;
}

class JsonRecords {
  /** The part of the text being read: from the record under the scan to the end of the last chunk. */
  private text = '';
  private at = 0;
  private ended = false;
  private readonly pacer = new Pacer();
  readonly records: ImportRecord[] = [];

  constructor(
    private readonly chunks: AsyncIterator<string>,
    private readonly limits: ImportLimits,
  ) {}

  async read(): Promise<ImportRecord[]> {
    await this.skipSpace();
    const first = await this.char();
    if (first === OPEN_ARRAY) await this.array(undefined);
    else if (first === OPEN_OBJECT) await this.object();
    else await this.loneValue();
    await this.skipSpace();
    if (!Number.isNaN(await this.char())) throw malformed(NOT_JSON);
    return this.records;
  }

  /** A body that is one value but no object or array: JSON or not, it is no import. */
  private async loneValue(): Promise<never> {
    if (Number.isNaN(await this.char())) throw malformed(NOT_JSON);
    let end: number;
    try {
      end = await this.valueEnd(() => 'The body');
    } catch {
      throw malformed(JSON_SHAPE);
    }
    this.parse(this.text.slice(this.at, end), () => NOT_JSON);
    this.at = end;
    await this.skipSpace();
    throw malformed(Number.isNaN(await this.char()) ? JSON_SHAPE : NOT_JSON);
  }

  /** `{"centres": [...], "sessions": [...]}`, either or both, in any order. */
  private async object(): Promise<void> {
    this.at++;
    await this.skipSpace();
    if (await this.take(CLOSE_OBJECT)) return;
    do {
      await this.skipSpace();
      if ((await this.char()) !== QUOTE) throw malformed(NOT_JSON);
      const end = (await this.closingQuote()) + 1;
      const key = this.parse(this.text.slice(this.at, end), () => NOT_JSON);
      this.at = end;
      await this.skipSpace();
      if (!(await this.take(COLON))) throw malformed(NOT_JSON);
      await this.skipSpace();
      if ((key !== 'centres' && key !== 'sessions') || (await this.char()) !== OPEN_ARRAY) throw malformed(JSON_SHAPE);
      await this.array(key === 'centres' ? 'centre' : 'session');
      await this.skipSpace();
    } while (await this.take(COMMA));
    if (!(await this.take(CLOSE_OBJECT))) throw malformed(NOT_JSON);
  }

  /** The records of an array: of one kind (`type` given), or each with its own `type`. */
  private async array(type: 'centre' | 'session' | undefined): Promise<void> {
    this.at++;
    await this.skipSpace();
    if (await this.take(CLOSE_ARRAY)) return;
    do {
      if (this.records.length === this.limits.maxRecords) throw tooManyRecords(this.limits.maxRecords);
      await this.skipSpace();
      const index = this.records.length;
      const end = await this.valueEnd(() => `Record ${index}`);
      const item = this.parse(this.text.slice(this.at, end), () => `${NOT_JSON} Record ${index} cannot be read.`);
      this.at = end;
      this.records.push(type ? { index, type, data: objectOf(item) } : typedRecord(index, item));
      await this.skipSpace();
      await this.pacer.tick();
    } while (await this.take(COMMA));
    if (!(await this.take(CLOSE_ARRAY))) throw malformed(NOT_JSON);
  }

  /** Takes the next chunk into the window and drops what was read. False once the text has ended. */
  private async more(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.chunks.next();
    if (next.done) {
      this.ended = true;
      return false;
    }
    this.text = this.text.slice(this.at) + next.value;
    this.at = 0;
    return true;
  }

  /** The character at the scan, NaN at the end of the text. */
  private async char(): Promise<number> {
    while (this.at >= this.text.length) if (!(await this.more())) return Number.NaN;
    return this.text.charCodeAt(this.at);
  }

  private async valueEnd(where: () => string): Promise<number> {
    for (;;) {
      const end = valueEnd(this.text, this.at, where);
      if (end >= 0) return end;
      // At the end of the text, the value runs to it (JSON.parse judges it).
      if (!(await this.more())) return this.text.length;
    }
  }

  private async closingQuote(): Promise<number> {
    for (;;) {
      const end = stringEnd(this.text, this.at);
      if (end >= 0) return end;
      if (this.text.length - this.at > MAX_RECORD_CHARS || !(await this.more())) throw malformed(NOT_JSON);
    }
  }

  private parse(text: string, message: () => string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      throw malformed(message());
    }
  }

  private async skipSpace(): Promise<void> {
    for (;;) {
      while (isSpace(this.text.charCodeAt(this.at))) this.at++;
      if (this.at < this.text.length || !(await this.more())) return;
    }
  }

  private async take(c: number): Promise<boolean> {
    if ((await this.char()) !== c) return false;
    this.at++;
    return true;
  }
}

/** Reads a JSON import into records (not yet checked), refusing it past `limits.maxRecords`. */
export function parseJsonRecords(text: AsyncIterable<string>, limits: ImportLimits): Promise<ImportRecord[]> {
  return new JsonRecords(text[Symbol.asyncIterator](), limits).read();
}

function typedRecord(index: number, item: unknown): ImportRecord {
  const { type, ...data } = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
  return { index, type: typeof type === 'string' ? type : undefined, data };
}

function objectOf(item: unknown): Record<string, unknown> {
  return typeof item === 'object' && item !== null && !Array.isArray(item) ? { ...(item as object) } : { '': item };
}
