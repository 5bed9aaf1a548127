import { IssueList } from './issues.js';
import { Pacer } from './pace.js';
import {
  type ImportLimits,
  type ImportRecord,
  MAX_RECORD_CHARS,
  malformed,
  recordTooLong,
  tooManyRecords,
} from './records.js';

/**
 * One record with a `type` per line; blank lines are skipped. Every line that is not a JSON object
 * is counted (the first ones listed); each non-blank line counts towards `limits.maxRecords`, and
 * the line past it refuses the file before the rest is read. Lines are cut from the text as it
 * arrives; only the line not yet ended is kept between chunks.
 */
export async function parseNdjson(text: AsyncIterable<string>, limits: ImportLimits): Promise<ImportRecord[]> {
  const records: ImportRecord[] = [];
  const issues = new IssueList();
  const pacer = new Pacer();
  let seen = 0;
  let lineNumber = 0;
  const take = async (line: string) => {
    lineNumber++;
    if (line.length > MAX_RECORD_CHARS) throw recordTooLong(`Line ${lineNumber}`);
    if (line.trim() === '') return;
    if (seen === limits.maxRecords) throw tooManyRecords(limits.maxRecords);
    const index = seen++;
    const data = objectLine(line);
    if (!data) issues.add({ name: '(line)', reason: 'is not a JSON object', index, line: lineNumber });
    // Once a line is bad the file is refused: the records after it are only counted.
    else if (issues.count === 0) {
      const { type, ...rest } = data;
      records.push({ index, line: lineNumber, type: typeof type === 'string' ? type : undefined, data: rest });
    }
    await pacer.tick();
  };
  let pending = '';
  for await (const chunk of text) {
    pending += chunk;
    let start = 0;
    for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n', start)) {
      await take(pending.slice(start, newline));
      start = newline + 1;
    }
    pending = pending.slice(start);
    if (pending.length > MAX_RECORD_CHARS) throw recordTooLong(`Line ${lineNumber + 1}`);
  }
  if (pending !== '') await take(pending);
  if (issues.count) throw malformed(`${issues.count} line(s) of the NDJSON are not JSON objects.`, issues);
  return records;
}

function objectLine(line: string): Record<string, unknown> | undefined {
  // Not even the start of an object: no parse (a thrown error costs more than the line).
  if (!line.trimStart().startsWith('{')) return undefined;
  try {
    const data = JSON.parse(line) as unknown;
    return typeof data === 'object' && data !== null && !Array.isArray(data)
      ? (data as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
