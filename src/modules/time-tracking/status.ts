import { type CursorCodec } from '../../domain/cursor.js';
import { findWorkplaceOfCompany, listWorkplacesOfCompany } from '../companies/queries.js';
import { type AppContext } from '../context.js';
import { namesOfEmployees } from '../employees/queries.js';
import { type ConsolePerson } from '../people/service.js';
import { clockStatus } from './service.js';
import { notInYourCompany } from '../../shared/input-checks.js';
/* Who is clocked in: the public GET /time-clock/status, and the admin API's view of it with names. */

/** Who is clocked in, oldest first: clockStatus (the public operation's service) plus names and workplaces. */
export async function whoIsIn(
  ctx: AppContext,
  cursors: CursorCodec,
  person: ConsolePerson,
  query: { workplaceId?: string; cursor?: string; limit?: number },
) {
  const db = ctx.database.db;
  if (
    query.workplaceId !== undefined &&
    !(await findWorkplaceOfCompany(db, person.companyId, query.workplaceId))
  )
    throw notInYourCompany('workplace');
  const page = await clockStatus(ctx, cursors, { companyId: person.companyId }, query);
  const [names, workplaces] = await Promise.all([
    namesOfEmployees(
      db,
      person.companyId,
      page.items.map((item) => item.employee.id),
    ),
    listWorkplacesOfCompany(db, person.companyId),
  ]);
  const byId = new Map(names.map((row) => [row.id, row]));
  const workplaceById = new Map(workplaces.map((row) => [row.id, row]));
  return {
    ...page,
    items: page.items.map((item) => {
      const employee = byId.get(item.employee.id);
      const workplace = item.workplaceId ? workplaceById.get(item.workplaceId) : undefined;
      return {
        ...item,
        employee: {
          ...item.employee,
          firstName: employee?.first_name ?? null,
          lastName: employee?.last_name ?? null,
          email: employee?.email ?? '',
        },
        workplace: workplace ? { id: workplace.id, name: workplace.name } : null,
      };
    }),
    timeZone: person.company.timeZone ?? 'UTC',
  };
}
