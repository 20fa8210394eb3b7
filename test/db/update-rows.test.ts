import { describe, expect, it } from 'vitest';
import { columnsOf, insertRows, updateById } from '../../src/platform/db/update-rows.js';

/*
 * Issue 32 (review of s32, F6): the multi-row writes write table and column names into their SQL; a
 * name that is not a plain identifier is refused before any SQL is built, and a column only a later
 * row carries is written (NULL for the rows without it), not dropped.
 */
describe('multi-row writes (update-rows.ts)', () => {
  const noTx = {} as never;

  it('refuses a table or column name that is not ^[a-z_][a-z0-9_]*$ before touching the database', async () => {
    await expect(insertRows(noTx, 'audit_log', ['id", "x' as never], [{}])).rejects.toThrow(
      /not a table or column name/,
    );
    await expect(insertRows(noTx, 'audit_log"; drop table x; --' as never, ['id'], [{}])).rejects.toThrow(
      /not a table or column name/,
    );
    await expect(updateById(noTx, 'time_entries', [['End_At' as never, false]], [{}])).rejects.toThrow(
      /not a table or column name/,
    );
  });

  it('columnsOf keeps a column that only a later row carries', () => {
    expect(columnsOf([{ a: 1 }, { a: 2, b: 3 } as { a: number; b?: number }])).toEqual(['a', 'b']);
  });
});
