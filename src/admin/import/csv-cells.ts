/*
 * CSV injection (OWASP): a spreadsheet opening the export runs a cell that starts with `=`, `+`,
 * `-`, `@`, a tab or a carriage return as a formula, so a centre named =HYPERLINK(…) would run in
 * the operator's spreadsheet. The export puts a single quote in front of such text cells; the
 * import takes exactly that quote off again, so that an export imported back changes nothing.
 *
 * The rule is one-to-one: the export adds a quote to every text that starts with any number of
 * quotes followed by one of those characters, and the import removes one quote from every cell
 * of that shape. A name that really begins with `'=` is exported as `''=…` and read back as `'=…`.
 * Numbers (prices, a negative longitude) are written as numbers: a spreadsheet reads -1.55 as a
 * number, not a formula.
 */

/** Text a spreadsheet would run, possibly behind quotes this rule added. */
const FORMULA_LIKE = /^'*[=+\-@\t\r]/;
/** A cell the export neutralised: one quote too many in front of formula-like text. */
const NEUTRALISED = /^'+[=+\-@\t\r]/;

/** A text value as an exported cell. */
export function neutralise(value: string): string {
  return FORMULA_LIKE.test(value) ? `'${value}` : value;
}

/** An imported cell as the value it stands for. */
export function restore(cell: string): string {
  return NEUTRALISED.test(cell) ? cell.slice(1) : cell;
}
