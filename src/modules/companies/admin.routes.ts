import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../domain/errors.js';
import { requirePermission, requirePerson } from '../../http/plugins/console-session.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import {
  PERMISSION_MANAGE_COMPANY,
  PERMISSION_READ_EMPLOYEES,
  PERMISSION_READ_ENTRIES,
} from '../auth/scopes.js';
import {
  AdminCompanySchema,
  ScheduleListSchema,
  UpdateCompanyBodySchema,
  WorkplaceListSchema,
} from './schemas.js';
import { changeCompany, getCompany, listSchedules, listWorkplaces } from './service.js';
import { hasPermission } from '../people/service.js';

/**
 * The person's company in the admin API: its settings, its workplaces and schedules.
 * Registered inside the admin API's guarded scope (app/admin-api-v1.ts): a console session, the CSRF
 * token and Origin on writes; the permission is checked here, and only the person's own company is reached.
 */
export const companyAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  const { ctx } = services;

  app.get(
    '/company',
    {
      schema: {
        summary: "The person's company",
        operationId: 'getCompany',
        description: 'Time zone, time tracking, API access and the timesheet settings. Anyone signed in.',
        tags: ['Company'],
        response: { 200: AdminCompanySchema, ...sessionErrors([]) },
      },
    },
    async (request) => getCompany(ctx, requirePerson(request)),
  );

  app.patch(
    '/company',
    {
      schema: {
        summary: "Change the company's settings",
        operationId: 'updateCompany',
        description:
          'Time zone (an IANA name, or null for none), time tracking on/off, API access on/off, and the ' +
          'timesheet settings (workweek start, daily overtime threshold in hours or null, working-time rules). ' +
          'Permission 93.',
        tags: ['Company'],
        body: UpdateCompanyBodySchema,
        response: {
          200: AdminCompanySchema,
          ...sessionErrors(['forbidden', 'validation_failed'], true),
        },
      },
    },
    async (request) =>
      changeCompany(ctx, requirePermission(request, PERMISSION_MANAGE_COMPANY), request.body),
  );

  app.get(
    '/workplaces',
    {
      schema: {
        summary: "The company's workplaces",
        operationId: 'listWorkplaces',
        description: 'By name. Permission 52 or 47.',
        tags: ['Employees'],
        response: { 200: WorkplaceListSchema, ...sessionErrors(['forbidden']) },
      },
    },
    async (request) => {
      const person = requirePerson(request);
      if (
        !hasPermission(person, PERMISSION_READ_EMPLOYEES) &&
        !hasPermission(person, PERMISSION_READ_ENTRIES)
      )
        throw new ApiError(
          'forbidden',
          `this needs permission ${PERMISSION_READ_EMPLOYEES} or ${PERMISSION_READ_ENTRIES}`,
        );
      return listWorkplaces(ctx, person);
    },
  );

  app.get(
    '/schedules',
    {
      schema: {
        summary: "The company's schedules",
        operationId: 'listSchedules',
        description: 'By name. Permission 52.',
        tags: ['Employees'],
        response: { 200: ScheduleListSchema, ...sessionErrors(['forbidden']) },
      },
    },
    async (request) => listSchedules(ctx, requirePermission(request, PERMISSION_READ_EMPLOYEES)),
  );
};
