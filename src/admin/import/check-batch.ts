import type { z } from 'zod';
import type { FieldError } from '../../core/errors.js';
import type { WriteScope } from '../repository/scope.js';
import { type CentreInput, CentreInputSchema, type SessionInput, SessionInputSchema, uuidField } from '../schemas.js';
import { RECORD_FIELDS } from './columns.js';
import { IssueList } from './issues.js';
import { Pacer } from './pace.js';
import { type ImportRecord, issueAt, type Prepared } from './records.js';

type Kind = 'centre' | 'session';

/** A record that is well formed on its own: a known type, a UUID not given twice, valid fields. */
interface Checked {
  type: Kind;
  id: string;
  input: CentreInput | SessionInput;
}

/** The issues of a record's fields, one per zod issue; unknown fields are listed with the fields its kind has. */
function fieldIssues(r: ImportRecord, type: Kind, id: string, error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => {
    const field =
      issue.path.length > 0
        ? String(issue.path[0])
        : issue.code === 'unrecognized_keys'
          ? issue.keys.join(', ')
          : '(record)';
    const reason =
      issue.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length > 1 ? 's' : ''} (a ${type} has: ${RECORD_FIELDS[type].join(', ')})`
        : issue.message;
    return issueAt(r, field, reason, id);
  });
}

const RECORD_ID = uuidField('id');

/** Checks one record alone (and its id against the ids seen before it). */
function checkRecord(r: ImportRecord, seen: Record<Kind, Map<string, number>>, issues: IssueList): Checked | undefined {
  if (r.type !== 'centre' && r.type !== 'session') {
    issues.add(issueAt(r, 'type', 'type must be "centre" or "session"', r.data.id));
    return undefined;
  }
  const { id: rawId, ...fields } = r.data;
  const id = RECORD_ID.safeParse(rawId);
  if (!id.success) {
    issues.add(
      issueAt(r, 'id', 'id must be a UUID (derive it from your own reference with UUID v5 to keep it stable)', rawId),
    );
    return undefined;
  }
  const earlier = seen[r.type].get(id.data);
  if (earlier !== undefined) {
    issues.add(issueAt(r, 'id', `id is also the id of record ${earlier}`, id.data));
    return undefined;
  }
  seen[r.type].set(id.data, r.index);
  const schema: z.ZodType = r.type === 'centre' ? CentreInputSchema : SessionInputSchema;
  const parsed = schema.safeParse(fields);
  if (!parsed.success) {
    for (const issue of fieldIssues(r, r.type, id.data, parsed.error)) issues.add(issue);
    return undefined;
  }
  return { type: r.type, id: id.data, input: parsed.data as CentreInput | SessionInput };
}

/**
 * Checks every record alone and against the rest of the batch: ids given twice, unique values
 * (slug, approval number, course number) given to two records, and what a partner key may import.
 * A slice at a time (pace.ts): checking 20,000 records takes a second or more.
 */
export async function checkBatch(
  records: readonly ImportRecord[],
  scope: WriteScope,
): Promise<{ prepared: Prepared; issues: IssueList }> {
  const issues = new IssueList();
  const pacer = new Pacer();
  const prepared: Prepared = { centres: [], sessions: [] };
  const seen = { centre: new Map<string, number>(), session: new Map<string, number>() };
  const taken = new Map<string, { id: string; index: number }>();
  const claim = (r: ImportRecord, field: string, value: string, id: string) => {
    const key = `${field}\u0000${value}`;
    const other = taken.get(key);
    if (other && other.id !== id)
      issues.add(issueAt(r, field, `${field} ${value} is also given to record ${other.index}`, id));
    else taken.set(key, { id, index: r.index });
  };
  for (const r of records) {
    await pacer.tick();
    const checked = checkRecord(r, seen, issues);
    if (!checked) continue;
    const { id } = checked;
    if (checked.type === 'centre') {
      if (scope.centreId !== null) {
        issues.add(issueAt(r, 'type', 'a partner key may import only its own sessions, not centres', id));
        continue;
      }
      const input = checked.input as CentreInput;
      claim(r, 'slug', input.slug, id);
      claim(r, 'agrementNumber', input.agrementNumber, id);
      prepared.centres.push({ id, input, index: r.index });
    } else {
      const input = checked.input as SessionInput;
      if (scope.centreId !== null && input.centreId !== scope.centreId) {
        issues.add(issueAt(r, 'centreId', "a partner key may import only its own centre's sessions", id));
        continue;
      }
      claim(r, 'courseNumber', input.courseNumber, id);
      prepared.sessions.push({ id, input, index: r.index });
    }
  }
  return { prepared, issues };
}
