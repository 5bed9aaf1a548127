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
 * the line past it refuses the file before the rest is read.
 */
export async function parseNdjson(text: string, limits: ImportLimits): Promise<ImportRecord[]> {
  const records: ImportRecord[] = [];
  const issues = new IssueList();
  const pacer = new Pacer();
  let seen = 0;
  let lineNumber = 0;
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    lineNumber++;
    if (end - start > MAX_RECORD_CHARS) throw recordTooLong(`Line ${lineNumber}`);
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === '') continue;
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
  }
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
