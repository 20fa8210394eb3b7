import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { ApiError, type FieldError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { requireCompany } from '../companies/service.js';
import { type AppContext, CLI_ACTOR, inTransaction } from '../context.js';
import { type BatchItem, type ItemOutcome, upsertShifts } from './batch.js';
import { companyOfEmployee, companyOfShift } from './queries/shifts.js';
import type { PlannedShiftInput } from './schemas.js';
import { deleteShift, listShifts, publishShifts } from './shifts.service.js';
import type { ShiftView } from './views.js';
import type { CursorCodec } from '../../domain/cursor.js';

/*
 * The operator's `punchclock shift …` commands (issue 33): the public API's operations for one
 * company, as the CLI's operator. The CLI checks each item's values with the API's own schema
 * (`check`), so a refusal reads the same whichever way the shift came.
 */

export type ItemCheck = (item: unknown) => FieldError[] | null;

function invalid(message: string): ApiError {
  return new ApiError('validation_failed', message);
}

async function scopeOfCompany(ctx: AppContext, companyId: string) {
  if (!isUuid(companyId)) throw invalid(`company id must be a UUID: ${companyId}`);
  const company = await requireCompany(ctx.database.db, companyId);
  return { companyId: company.id, companyZone: company.time_zone, actor: CLI_ACTOR };
}

function settledOne(outcome: ItemOutcome): ShiftView {
  if ('error' in outcome) throw outcome.error;
  return outcome.body;
}

/** `shift create --employee ID --start T --end T [--workplace ID] [--break-minutes N] [--external-id X] [--status S]`. */
export async function createShiftFromCli(
  ctx: AppContext,
  check: ItemCheck,
  input: {
    employee: string;
    start: string;
    end: string;
    workplace?: string;
    breakMinutes?: string;
    externalId?: string;
    status?: string;
  },
): Promise<ShiftView> {
  if (!isUuid(input.employee)) throw invalid(`employee must be an employee id (UUID): ${input.employee}`);
  const companyId = await companyOfEmployee(ctx.database.db, input.employee.toLowerCase());
  if (!companyId) throw new ApiError('employee_not_found', `unknown employee: ${input.employee}`);
  if (input.breakMinutes !== undefined && !/^\d{1,4}$/.test(input.breakMinutes))
    throw invalid('break minutes must be a whole number of minutes');
  const item = {
    employee: { id: input.employee },
    start: input.start,
    end: input.end,
    ...(input.workplace !== undefined ? { workplaceId: input.workplace } : {}),
    ...(input.breakMinutes !== undefined ? { breakMinutes: Number(input.breakMinutes) } : {}),
    ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
  };
  const scope = await scopeOfCompany(ctx, companyId);
  const [outcome] = await inTransaction(ctx, (tx, now) =>
    upsertShifts(tx, now, scope, [{ item: item as PlannedShiftInput, invalid: check(item) }], {
      dryRun: false,
    }),
  );
  return settledOne(outcome!);
}

/** `shift list --company ID --from D --to D`: every shift dated from..to, by start. */
export async function listShiftsFromCli(
  ctx: AppContext,
  cursors: CursorCodec,
  input: { company: string; from: string; to: string },
): Promise<{ shifts: ShiftView[] }> {
  const { companyId } = await scopeOfCompany(ctx, input.company);
  const shifts: ShiftView[] = [];
  let cursor: string | undefined;
  do {
    const page = await listShifts(ctx.database.db, cursors, companyId, {
      from: input.from,
      to: input.to,
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    shifts.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return { shifts };
}

/** `shift delete ID`. */
export async function deleteShiftFromCli(ctx: AppContext, id: string): Promise<{ deleted: string }> {
  if (!isUuid(id)) throw invalid(`shift id must be a UUID: ${id}`);
  const companyId = await companyOfShift(ctx.database.db, id.toLowerCase());
  if (!companyId) throw new ApiError('not_found', `unknown planned shift: ${id}`);
  await inTransaction(ctx, (tx, now) => deleteShift(tx, now, { companyId, actor: CLI_ACTOR }, id));
  return { deleted: id.toLowerCase() };
}

/** `shift publish --company ID --from D --to D [--workplace ID]`. */
export async function publishFromCli(
  ctx: AppContext,
  input: { company: string; from: string; to: string; workplace?: string },
): Promise<{ published: number }> {
  const { companyId } = await scopeOfCompany(ctx, input.company);
  if (input.workplace !== undefined && !isUuid(input.workplace))
    throw invalid(`workplace must be a UUID: ${input.workplace}`);
  const { published } = await inTransaction(ctx, (tx, now) =>
    publishShifts(
      tx,
      now,
      { companyId, actor: CLI_ACTOR },
      { from: input.from, to: input.to, workplaceId: input.workplace ?? null },
      { dryRun: false },
    ),
  );
  return { published };
}

export const IMPORT_COLUMNS = [
  'external_id',
  'employee_external_id',
  'workplace_id',
  'start',
  'end',
  'break_minutes',
  'note',
  'status',
] as const;
const IMPORT_CHUNK = 500;

export interface ImportRow {
  line: number;
  status: number;
  result: 'created' | 'updated' | 'unchanged' | 'refused';
  externalId: string;
  shiftId: string | null;
  error: string | null;
}

/** One CSV record as a batch item; a row the batch cannot take is refused here with its reason. */
function itemOfRecord(record: Record<string, string>, check: ItemCheck): BatchItem {
  const text = (column: string) => (record[column] ?? '').trim();
  const item: Record<string, unknown> = {
    employee: { externalId: text('employee_external_id') },
    start: text('start'),
    end: text('end'),
  };
  if (text('external_id') !== '') item.externalId = text('external_id');
  if (text('workplace_id') !== '') item.workplaceId = text('workplace_id');
  if (text('break_minutes') !== '')
    item.breakMinutes = /^\d{1,4}$/.test(text('break_minutes'))
      ? Number(text('break_minutes'))
      : text('break_minutes');
  if ((record.note ?? '') !== '') item.note = record.note;
  if (text('status') !== '') item.status = text('status');
  const errors: FieldError[] = [...(check(item) ?? [])];
  if (text('external_id') === '')
    errors.push({
      field: 'external_id',
      message: 'is required, so that importing the file again changes nothing',
      code: 'required',
    });
  return { item: item as PlannedShiftInput, invalid: errors.length > 0 ? errors : null };
}

interface CsvRecord {
  record: Record<string, string>;
  line: number;
}

function readRecords(file: string): CsvRecord[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw invalid(`cannot read ${file}`);
  }
  let parsed: { record: Record<string, string>; info: { lines: number } }[];
  try {
    parsed = parse(text.replace(/^\uFEFF/, ''), { columns: true, skip_empty_lines: true, info: true });
  } catch (error) {
    throw invalid(`${file} is not a CSV file this import reads: ${(error as Error).message}`);
  }
  const header = parsed.length > 0 ? Object.keys(parsed[0]!.record) : [];
  const missing = IMPORT_COLUMNS.filter((c) => !header.includes(c));
  if (parsed.length > 0 && missing.length > 0)
    throw invalid(`${file} lacks the column(s) ${missing.join(', ')}`);
  return parsed.map(({ record, info }) => ({ record, line: info.lines }));
}

function rowOf(outcome: ItemOutcome, line: number, externalId: string, at: string): ImportRow {
  if ('error' in outcome) {
    const reason =
      outcome.error.fieldErrors?.map((e) => `${e.field}: ${e.message}`).join('; ') ?? outcome.error.detail;
    return {
      line,
      status: outcome.status,
      result: 'refused',
      externalId,
      shiftId: null,
      error: `${outcome.error.errorName}: ${reason ?? outcome.error.message}`,
    };
  }
  const result = outcome.status === 201 ? 'created' : outcome.body.updatedAt === at ? 'updated' : 'unchanged';
  return { line, status: outcome.status, result, externalId, shiftId: outcome.body.id, error: null };
}

/** `shift import --company ID --file F.csv`: upserts by external_id, 500 rows per transaction. */
export async function importShifts(
  ctx: AppContext,
  check: ItemCheck,
  input: { company: string; file: string },
) {
  const scope = await scopeOfCompany(ctx, input.company);
  const records = readRecords(input.file);
  const rows: ImportRow[] = [];
  for (let i = 0; i < records.length; i += IMPORT_CHUNK) {
    const chunk = records.slice(i, i + IMPORT_CHUNK);
    const items = chunk.map(({ record }) => itemOfRecord(record, check));
    const now = ctx.now();
    const at = new Date(now).toISOString();
    const outcomes = await ctx.database.transaction((tx) =>
      upsertShifts(tx, now, scope, items, { dryRun: false }),
    );
    outcomes.forEach((outcome, k) =>
      rows.push(rowOf(outcome, chunk[k]!.line, (chunk[k]!.record.external_id ?? '').trim(), at)),
    );
  }
  const count = (result: ImportRow['result']) => rows.filter((r) => r.result === result).length;
  return {
    file: input.file,
    rows: rows.length,
    created: count('created'),
    updated: count('updated'),
    unchanged: count('unchanged'),
    refused: count('refused'),
    results: rows,
  };
}
