import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvText } from '../../src/modules/timesheets/csv.js';

describe('the payroll file’s text (csv-stringify with our options)', () => {
  const cells = [
    '=1+1',
    '+A1',
    '-2',
    '@SUM(1)',
    '\tx',
    '\rx',
    'a,b',
    'say "hi"',
    'two\nlines',
    'plain',
    '7.50',
  ];

  it('neutralises every formula start, quotes what RFC 4180 needs, and a parser reads it back', () => {
    const text = csvText([cells], ',', true);
    expect(text.startsWith(`${CSV_COLUMNS.join(',')}\r\n`)).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, row] = parse(text, { relax_column_count: true }) as string[][];
    expect(header).toEqual([...CSV_COLUMNS]);
    expect(row).toEqual([
      "'=1+1",
      "'+A1",
      "'-2",
      "'@SUM(1)",
      "'\tx",
      "'\rx",
      'a,b',
      'say "hi"',
      'two\nlines',
      'plain',
      '7.50',
    ]);
    // A lone CR or LF inside a cell is quoted, so no parser splits the row there.
    expect(text).toContain('"\'\rx"');
    expect(text).toContain('"two\nlines"');
  });

  it('separates with a semicolon on request, quoting cells that hold one', () => {
    const text = csvText([['a;b', 'c,d', '1.25']], ';', false);
    expect(text).toBe('"a;b";c,d;1.25\r\n');
    expect(parse(text, { delimiter: ';' })).toEqual([['a;b', 'c,d', '1.25']]);
  });
});
