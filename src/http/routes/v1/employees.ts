import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../../app.js';
import { listEmployees, setExternalId } from '../../../use-cases/api/employees.js';
import { sendJson } from '../../json-reply.js';
import { authenticate, requirePrincipal } from '../../plugins/authenticate.js';
import { bearerSecurity } from '../../openapi.js';
import { BODY_ERRORS, errorResponses } from '../../schemas/responses.js';
import {
  DryRunHeaderSchema,
  EmployeePageSchema,
  EmployeesQuerySchema,
  ExternalIdBodySchema,
  ExternalIdParamsSchema,
  ExternalIdResultSchema,
  described,
} from '../../schemas/v1.js';
import { parseDryRun } from '../../write-headers.js';

export function registerEmployeeRoutes(app: FastifyInstance, services: AppServices): void {
  const guard = { ...services, limiter: services.resourceLimiter };

  app.get(
    '/api/public/v1/employees',
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
    async (request, reply) => {
      const query = request.query as { status?: string; limit?: number; cursor?: string };
      return sendJson(
        reply,
        200,
        await listEmployees(services.ctx, services.cursors, requirePrincipal(request), query),
      );
    },
  );

  app.put(
    '/api/public/v1/employees/:id/external-id',
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
      const { id } = request.params as { id: string };
      const body = request.body as { externalId: string | null };
      return setExternalId(services.ctx, requirePrincipal(request), {
        employeeId: id,
        externalId: body.externalId,
        dryRun: parseDryRun(request.headers),
      });
    },
  );
}
