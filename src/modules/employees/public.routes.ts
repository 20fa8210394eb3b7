import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticate, requirePrincipal } from '../../http/plugins/authenticate.js';
import { bearerSecurity } from '../../http/plugins/openapi.js';
import { DryRunHeaderSchema, described } from '../../http/schemas/common.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas/responses.js';
import { parseDryRun } from '../../http/write-headers.js';
import {
  EmployeePageSchema,
  EmployeesQuerySchema,
  ExternalIdBodySchema,
  ExternalIdParamsSchema,
  ExternalIdResultSchema,
} from './schemas.js';
import { listEmployees, setExternalId } from './service.js';

export const employeeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  const guard = { ...services, limiter: services.resourceLimiter };

  app.get(
    '/employees',
    {
      onRequest: authenticate(guard, 'employees.read'),
      schema: {
        summary: "List the company's employees",
        operationId: 'listEmployees',
        description:
          "Lists the company's employees (never deleted ones), ordered by id, 1 to 100 per page (default 25). " +
          'Follow `nextCursor` as `cursor` while `hasMore` is true; cursors are opaque.',
        tags: ['Employees'],
        security: bearerSecurity('employees.read'),
        querystring: EmployeesQuerySchema,
        response: {
          200: described(EmployeePageSchema, 'A page of employees, ordered by id'),
          ...errorResponses(['invalid_token', 'insufficient_scope', 'validation_failed', 'rate_limited']),
        },
      },
    },
    async (request) =>
      listEmployees(services.ctx, services.cursors, requirePrincipal(request), request.query),
  );

  app.put(
    '/employees/:id/external-id',
    {
      onRequest: authenticate(guard, 'attendance.record'),
      schema: {
        summary: "Set or clear an employee's external (badge / HRIS) id",
        operationId: 'setEmployeeExternalId',
        description:
          'Sets the external id (at most 64 characters, case-sensitive, unique in the company); null or blank clears it. ' +
          'A value already held by another employee gives 409 `already_exists`. With `X-Service-Dry-Run: true` nothing is stored.',
        tags: ['Employees'],
        security: bearerSecurity('attendance.record'),
        params: ExternalIdParamsSchema,
        headers: DryRunHeaderSchema,
        body: ExternalIdBodySchema,
        response: {
          200: described(
            ExternalIdResultSchema,
            'The external id as stored (or as it would be, on a dry run)',
          ),
          ...errorResponses([
            'invalid_token',
            'insufficient_scope',
            'employee_not_found',
            'already_exists',
            'validation_failed',
            'rate_limited',
            ...BODY_ERRORS,
          ]),
        },
      },
    },
    async (request) => {
      return setExternalId(services.ctx, requirePrincipal(request), {
        employeeId: request.params.id,
        externalId: request.body.externalId,
        dryRun: parseDryRun(request.headers),
      });
    },
  );
};
