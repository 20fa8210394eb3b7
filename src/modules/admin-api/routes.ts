import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { consoleGuard, requirePermission, requirePerson } from '../../http/plugins/console-session.js';
import {
  AdminCompanySchema,
  AdminEmployeePageSchema,
  AdminEmployeesQuerySchema,
  AdminTimeEntriesQuerySchema,
  AdminTimeEntryListSchema,
  ApiKeyListSchema,
  ApiKeySchema,
  ApiKeyWithSecretSchema,
  ConfirmDayBodySchema,
  ConfirmedDaySchema,
  CreateApiKeyBodySchema,
  DecisionsBodySchema,
  DecisionsResultSchema,
  IdParamsSchema,
  RotateApiKeyBodySchema,
  sessionErrors,
  UpdateCompanyBodySchema,
} from '../../http/schemas/admin.js';
import {
  PERMISSION_DECIDE_ENTRIES,
  PERMISSION_MANAGE_COMPANY,
  PERMISSION_MANAGE_KEYS,
  scopeInfo,
} from '../auth/scopes.js';
import {
  changeCompany,
  confirmEmployeeDay,
  createKey,
  decideEntries,
  getCompany,
  listEmployeesByName,
  listEntries,
  listKeys,
  revokeKey,
  rotateKey,
} from './service.js';

const READ_ENTRIES = scopeInfo('attendance.read').permission;
const READ_EMPLOYEES = scopeInfo('employees.read').permission;

/**
 * The admin API's operations (docs/admin-api-contract.md). Every one needs a console session (and,
 * when it changes something, the CSRF token and Origin), checks the person's permission here on the
 * server, and reaches only the person's own company.
 */
export const adminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  const { ctx } = services;
  app.addHook('onRequest', consoleGuard(services));

  app.get(
    '/api-keys',
    {
      schema: {
        summary: "List the company's API keys",
        operationId: 'listApiKeys',
        description: 'Every key of the company, newest first; never a secret. Permission 90.',
        tags: ['API keys'],
        response: { 200: ApiKeyListSchema, ...sessionErrors(['forbidden']) },
      },
    },
    async (request) => listKeys(ctx, requirePermission(request, PERMISSION_MANAGE_KEYS)),
  );

  app.post(
    '/api-keys',
    {
      schema: {
        summary: 'Create an API key',
        operationId: 'createApiKey',
        description:
          'Creates a key; its secret is in this response only. Machine scopes may always be granted, a ' +
          "human scope only with the person's matching permission (or as super admin). Permission 90.",
        tags: ['API keys'],
        body: CreateApiKeyBodySchema,
        response: {
          201: ApiKeyWithSecretSchema,
          ...sessionErrors(['forbidden', 'validation_failed'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_KEYS);
      return reply.code(201).send(await createKey(ctx, person, request.body));
    },
  );

  app.post(
    '/api-keys/:id/rotate',
    {
      schema: {
        summary: "Rotate an API key's secret",
        operationId: 'rotateApiKey',
        description:
          'A new secret, shown once. With `graceSeconds` the old secret keeps working that long. Permission 90.',
        tags: ['API keys'],
        params: IdParamsSchema,
        body: RotateApiKeyBodySchema,
        response: {
          200: ApiKeyWithSecretSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request) =>
      rotateKey(
        ctx,
        requirePermission(request, PERMISSION_MANAGE_KEYS),
        request.params.id,
        request.body.graceSeconds,
      ),
  );

  app.post(
    '/api-keys/:id/revoke',
    {
      schema: {
        summary: 'Revoke an API key',
        operationId: 'revokeApiKey',
        description:
          'The key stops working at once, on every instance. Revoking twice is harmless. Permission 90.',
        tags: ['API keys'],
        params: IdParamsSchema,
        response: { 200: ApiKeySchema, ...sessionErrors(['forbidden', 'not_found'], true) },
      },
    },
    async (request) => revokeKey(ctx, requirePermission(request, PERMISSION_MANAGE_KEYS), request.params.id),
  );

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
      listEmployeesByName(ctx, services.cursors, requirePermission(request, READ_EMPLOYEES), request.query),
  );

  app.get(
    '/time-entries',
    {
      schema: {
        summary: "An employee's time entries of some days",
        operationId: 'listTimeEntries',
        description:
          'The entries of the days from `from` to `to` (at most 62), an overnight entry on the day it started, ' +
          'pending ones first; and which of those days are confirmed. Permission 47.',
        tags: ['Time entries'],
        querystring: AdminTimeEntriesQuerySchema,
        response: {
          200: AdminTimeEntryListSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed']),
        },
      },
    },
    async (request) => listEntries(ctx, requirePermission(request, READ_ENTRIES), request.query),
  );

  app.post(
    '/time-entries/decisions',
    {
      schema: {
        summary: 'Approve or reject entries',
        operationId: 'decideTimeEntries',
        description:
          'Decides each pending entry in a transaction of its own: per entry 200 with the entry, 404 (not in ' +
          'your company) or 409 (not pending). Permission 91.',
        tags: ['Time entries'],
        body: DecisionsBodySchema,
        response: {
          200: DecisionsResultSchema,
          ...sessionErrors(['forbidden', 'validation_failed'], true),
        },
      },
    },
    async (request) => {
      const person = requirePermission(request, PERMISSION_DECIDE_ENTRIES);
      const results = await decideEntries(ctx, person, request.body.ids, request.body.decision);
      return {
        results: results.map((result) =>
          result.status === 200
            ? result
            : { id: result.id, status: result.status, problem: services.problemFor(request, result.error) },
        ),
      };
    },
  );

  app.post(
    '/confirmed-days',
    {
      schema: {
        summary: "Confirm an employee's day",
        operationId: 'confirmDay',
        description:
          'Locks the day: no punch or shift may change it any more (409 day_locked). Confirming twice is ' +
          'harmless. Permission 91.',
        tags: ['Time entries'],
        body: ConfirmDayBodySchema,
        response: {
          201: ConfirmedDaySchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_DECIDE_ENTRIES);
      return reply.code(201).send(await confirmEmployeeDay(ctx, person, request.body));
    },
  );

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
};
