import { OPEN } from './entries.js';
import { type Executor } from '../../../platform/db/database.js';
import { boundLimit, prepareQuery } from '../../../platform/db/prepared.js';

/* Who is clocked in: the company's open sessions, oldest first, with the break in progress. */

interface OpenSessionsInput {
  companyId: string;
  workplaceId: string;
  employeeId: string;
  externalId: string;
  afterStart: string;
  afterId: string;
  limit: number;
}

/** One prepared query per filter and cursor shape (see listOpenSessions). */
const openSessionsQuery = (filter: 'all' | 'workplace' | 'id' | 'externalId', withAfter: boolean) =>
  prepareQuery((db, p: OpenSessionsInput) =>
    db
      .selectFrom('time_entries as t')
      .innerJoin('employees as e', 'e.id', 't.employee_id')
      // The break in progress, if any: at most one per entry (partial unique index).
      .leftJoin('time_entry_breaks as b', (join) =>
        join.onRef('b.time_entry_id', '=', 't.id').on('b.end_at', 'is', null),
      )
      .select([
        't.id',
        't.start_at',
        't.start_time',
        'e.id as employee_id',
        'e.external_id',
        'e.workplace_id',
        'b.start_at as break_since',
      ])
      .where('t.company_id', '=', p.companyId)
      .where('t.status', '=', OPEN)
      .where('e.deleted_at', 'is', null)
      .$if(filter === 'workplace', (q) => q.where('e.workplace_id', '=', p.workplaceId))
      .$if(filter === 'id', (q) => q.where('e.id', '=', p.employeeId))
      .$if(filter === 'externalId', (q) => q.where('e.external_id', '=', p.externalId))
      .$if(withAfter, (q) =>
        q.where((eb) =>
          eb.or([
            eb('t.start_at', '>', p.afterStart),
            eb.and([eb('t.start_at', '=', p.afterStart), eb('t.id', '>', p.afterId)]),
          ]),
        ),
      )
      .orderBy('t.start_at')
      .orderBy('t.id')
      .limit(boundLimit(p.limit)),
  );

const OPEN_SESSION_QUERIES = Object.fromEntries(
  (['all', 'workplace', 'id', 'externalId'] as const).flatMap((filter) => [
    [filter, openSessionsQuery(filter, false)],
    [`${filter}After`, openSessionsQuery(filter, true)],
  ]),
);

/** The company's open sessions (who is clocked in), oldest first, one filter at most. */
export async function listOpenSessions(
  db: Executor,
  input: {
    companyId: string;
    filter: { workplaceId: string } | { employeeId: string } | { externalId: string } | null;
    after: { start: string; id: string } | null;
    limit: number;
  },
) {
  const { filter, after } = input;
  const kind =
    filter === null
      ? 'all'
      : 'workplaceId' in filter
        ? 'workplace'
        : 'employeeId' in filter
          ? 'id'
          : 'externalId';
  return OPEN_SESSION_QUERIES[`${kind}${after ? 'After' : ''}`]!.execute(db, {
    companyId: input.companyId,
    workplaceId: filter && 'workplaceId' in filter ? filter.workplaceId : '',
    employeeId: filter && 'employeeId' in filter ? filter.employeeId : '',
    externalId: filter && 'externalId' in filter ? filter.externalId : '',
    afterStart: after?.start ?? '',
    afterId: after?.id ?? '',
    limit: input.limit,
  });
}
