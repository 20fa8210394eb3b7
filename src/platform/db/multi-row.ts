/**
 * The first words of a multi-row statement's text (update-rows.ts): SQLite keeps those statements in
 * a small cache of their own (sqlite.ts), as each row count is another text.
 */
export const MULTI_ROW_MARK = '/* rows */ ';
