import { type CursorCodec } from '../../domain/cursor.js';
import { validationError } from '../../domain/errors.js';
import { addDays, startOfDayIn } from '../../domain/time-zone.js';
import { auditActions, listAudit } from './queries.js';
import { type AppContext } from '../context.js';
import { invalidCursor } from '../../shared/pages.js';
import { type ConsolePerson } from '../people/person.js';

/*
 * The console's audit log: who did what (a person, an API key or the command line), when, in the
 * person's own company, newest first, filterable by actor, action and days (the company's days).
 */

function parseDetails(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { value: parsed };
  } catch {
    return { text };
  }
}

export async function listAuditLog(
  ctx: AppContext,
  cursors: CursorCodec,
  person: ConsolePerson,
  query: {
    actorType?: 'user' | 'api_key' | 'cli' | 'system';
    actorId?: string;
    action?: string;
    from?: string;
    to?: string;
    cursor?: string;
    limit?: number;
  },
) {
  if (query.from !== undefined && query.to !== undefined && query.from > query.to)
    throw validationError([{ field: 'to', message: 'must not be before from', code: 'range' }]);
  const zone = person.company.timeZone;
  const filters = {
    actorType: query.actorType ?? null,
    actorId: query.actorId?.toLowerCase() ?? null,
    action: query.action ?? null,
    fromAt: query.from !== undefined ? startOfDayIn(zone, query.from) : null,
    beforeAt: query.to !== undefined ? startOfDayIn(zone, addDays(query.to, 1)) : null,
  };
  const filterKey = JSON.stringify(filters);
  let after: { at: string; id: string } | null = null;
  if (query.cursor !== undefined) {
    const p = cursors.decode(query.cursor);
    // Bound to its listing: another company's or other filters' cursor is refused.
    if (
      p?.k !== 'admin-audit' ||
      p.c !== person.companyId ||
      p.f !== filterKey ||
      typeof p.t !== 'string' ||
      typeof p.a !== 'string'
    )
      throw invalidCursor();
    after = { at: p.t, id: p.a };
  }
  const limit = query.limit ?? 50;
  const db = ctx.database.db;
  const [rows, actions] = await Promise.all([
    listAudit(db, { companyId: person.companyId, ...filters, after, limit: limit + 1 }),
    auditActions(db, person.companyId),
  ]);
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map((row) => ({
      id: row.id,
      at: row.created_at,
      actor: {
        type: row.actor_type as 'user' | 'api_key' | 'cli' | 'system',
        id: row.actor_id,
        name: row.actor_type === 'user' ? row.user_email : row.actor_type === 'api_key' ? row.key_name : null,
      },
      action: row.action,
      targetType: row.target_type,
      targetId: row.target_id,
      details: parseDetails(row.details),
    })),
    nextCursor:
      hasMore && last
        ? cursors.encode({
            k: 'admin-audit',
            c: person.companyId,
            f: filterKey,
            t: last.created_at,
            a: last.id,
          })
        : null,
    hasMore,
    actions,
  };
}
