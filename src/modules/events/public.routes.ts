import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticate, requirePrincipal } from '../../http/plugins/authenticate.js';
import { bearerSecurity } from '../../http/plugins/openapi.js';
import { described } from '../../http/schemas/common.js';
import { errorResponses } from '../../http/schemas/responses.js';
import { ChangesPageSchema, ChangesQuerySchema } from './schemas.js';
import { readChanges } from './service.js';

export const changeFeedRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  app.get(
    '/changes',
    {
      // Either read scope: which events are visible depends on the token's scopes (see readChanges).
      onRequest: authenticate({ ...services, limiter: services.resourceLimiter }, null),
      schema: {
        summary: "Follow the company's changes",
        operationId: 'listChanges',
        description:
          "The company's events in causal order (a change made after another committed comes after it): every change to time entries, days, employees and absences, recorded with the change. " +
          'Follow `nextCursor` while `hasMore` is true; keep `resumeCursor` and ask with it later for newer events only: nothing is missed or repeated. ' +
          '`time_entry.*`, `day.*` and `attendance.*` events need `attendance.read`, `employee.*` events `employees.read`, `absence.*` events `leave.read`. ' +
          'Events are kept 30 days (EVENT_RETENTION_DAYS); a cursor into removed events gets 410 `cursor_expired`.',
        tags: ['Changes'],
        security: bearerSecurity('attendance.read', 'employees.read', 'leave.read'),
        querystring: ChangesQuerySchema,
        response: {
          200: described(ChangesPageSchema, 'A page of events, oldest first'),
          ...errorResponses([
            'invalid_token',
            'insufficient_scope',
            'validation_failed',
            'cursor_expired',
            'rate_limited',
          ]),
        },
      },
    },
    async (request) =>
      readChanges(services.ctx.database.db, services.cursors, requirePrincipal(request), request.query),
  );
};
