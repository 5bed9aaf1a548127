import type { FieldError } from '../../core/errors.js';

/** Most issues one refusal lists: enough to fix a file from the top; the rest are counted. */
export const MAX_LISTED_ISSUES = 100;

/**
 * The issues of a batch: every one counted, the first MAX_LISTED_ISSUES in record order kept.
 * A file of 50,000 bad records has hundreds of thousands of issues; listing them all made answers
 * of megabytes and kept an object per issue alive until the answer was sent.
 */
export class IssueList {
  /** Every issue added. */
  count = 0;
  private readonly kept: FieldError[] = [];
  private readonly bad = new Set<number>();

  add(issue: FieldError): void {
    this.count++;
    const index = issue.index ?? 0;
    this.bad.add(index);
    const last = this.kept.at(-1);
    if (this.kept.length === MAX_LISTED_ISSUES && last && (last.index ?? 0) <= index) return;
    // Kept in record order, and stable: after the issues of the same record found before it.
    let at = this.kept.length;
    while (at > 0 && (this.kept[at - 1]?.index ?? 0) > index) at--;
    this.kept.splice(at, 0, issue);
    if (this.kept.length > MAX_LISTED_ISSUES) this.kept.pop();
  }

  /** The issues listed in the answer, in record order. */
  get listed(): FieldError[] {
    return [...this.kept];
  }

  /** How many records have at least one issue. */
  get badRecords(): number {
    return this.bad.size;
  }
}
