import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../http/plugins/console-session.js';
import { IdParamsSchema } from '../../http/schemas/common.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { PERMISSION_MANAGE_EMPLOYEES, PERMISSION_READ_EMPLOYEES } from '../auth/scopes.js';
import { createEmployeeOf, deleteEmployeeOf, getEmployee, updateEmployeeOf } from './company-scope.js';
import {
  AdminEmployeeDetailSchema,
  AdminEmployeePageSchema,
  AdminEmployeesQuerySchema,
  CreateEmployeeBodySchema,
  UpdateEmployeeBodySchema,
} from './schemas.js';
import { listEmployeesByName } from './service.js';
import { type TypeBoxApp, type RouteContext, routeContext } from '../../http/route-context.js';

/**
 * The company's employees in the admin API: the directory by name, one employee, and the CLI's
 * create / update / delete with each refusal naming its field.
 * Registered inside the admin API's guarded scope (app/admin-api-v1.ts): a console session, the CSRF
 * token and Origin on writes; the permission is checked here, and only the person's own company is reached.
 */

function listEmployeesRoute(app: TypeBoxApp, { services, ctx }: RouteContext) {
  app.get(
    '/employees',
    {
      schema: {
        summary: "List the company's employees by name",
        operationId: 'listEmployees',
        description:
          'By last name, then first name; `search` matches names, email and external id. Permission 52.',
        tags: ['Employees'],
        querystring: AdminEmployeesQuerySchema,
        response: {
          200: AdminEmployeePageSchema,
          ...sessionErrors(['forbidden', 'validation_failed']),
        },
      },
    },
    async (request) =>
      listEmployeesByName(
        ctx,
        services.cursors,
        requirePermission(request, PERMISSION_READ_EMPLOYEES),
        request.query,
      ),
  );
}

function getEmployeeRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.get(
    '/employees/:id',
    {
      schema: {
        summary: 'An employee',
        operationId: 'getEmployee',
        description: 'With the schedule assigned last and the day it applies from. Permission 52.',
        tags: ['Employees'],
        params: IdParamsSchema,
        response: { 200: AdminEmployeeDetailSchema, ...sessionErrors(['forbidden', 'not_found']) },
      },
    },
    async (request) =>
      getEmployee(ctx, requirePermission(request, PERMISSION_READ_EMPLOYEES), request.params.id),
  );
}

function createEmployeeRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/employees',
    {
      schema: {
        summary: 'Create an employee',
        operationId: 'createEmployee',
        description:
          "The CLI's `employee create`: its checks, each refusal a 422 naming the field; an external id " +
          'another employee holds is 409 already_exists (naming externalId). Permission 92.',
        tags: ['Employees'],
        body: CreateEmployeeBodySchema,
        response: {
          201: AdminEmployeeDetailSchema,
          ...sessionErrors(['forbidden', 'validation_failed', 'already_exists'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_EMPLOYEES);
      return reply.code(201).send(await createEmployeeOf(ctx, person, request.body));
    },
  );
}

function updateEmployeeRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.patch(
    '/employees/:id',
    {
      schema: {
        summary: 'Change an employee',
        operationId: 'updateEmployee',
        description:
          "The CLI's `employee update`: only the fields sent change; null clears a name, the external id, " +
          'the workplace or the schedule. A schedule applies from `scheduleFrom` (default: 60 days ago). Permission 92.',
        tags: ['Employees'],
        params: IdParamsSchema,
        body: UpdateEmployeeBodySchema,
        response: {
          200: AdminEmployeeDetailSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed', 'already_exists'], true),
        },
      },
    },
    async (request) =>
      updateEmployeeOf(
        ctx,
        requirePermission(request, PERMISSION_MANAGE_EMPLOYEES),
        request.params.id,
        request.body,
      ),
  );
}

function deleteEmployeeRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.delete(
    '/employees/:id',
    {
      schema: {
        summary: 'Delete an employee',
        operationId: 'deleteEmployee',
        description: "The CLI's `employee delete` (a soft delete: their time entries stay). Permission 92.",
        tags: ['Employees'],
        params: IdParamsSchema,
        response: {
          204: { type: 'null', description: 'Deleted' },
          ...sessionErrors(['forbidden', 'not_found'], true),
        },
      },
    },
    async (request, reply) => {
      await deleteEmployeeOf(ctx, requirePermission(request, PERMISSION_MANAGE_EMPLOYEES), request.params.id);
      return reply.code(204).send();
    },
  );
}

export const employeeAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const context = routeContext(app);
  listEmployeesRoute(app, context);
  getEmployeeRoute(app, context);
  createEmployeeRoute(app, context);
  updateEmployeeRoute(app, context);
  deleteEmployeeRoute(app, context);
};
