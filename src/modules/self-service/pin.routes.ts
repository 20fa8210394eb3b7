import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ErrorName } from '../../domain/errors.js';
import { requirePerson } from '../../http/plugins/console-session.js';
import { chargeAttempt } from '../../http/plugins/rate-limit/headers.js';
import { routeContext } from '../../http/route-context.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { SetPinBodySchema, SetPinResultSchema } from '../devices/schemas.js';
import { setOwnPin } from './own-pin.js';

/**
 * The person sets their own kiosk PIN in self-service (issue 35, item 4: "set by an admin ... or by
 * the person in self-service"): the console's session and CSRF token are the proof, as for every
 * self-service write; no current PIN is asked (a PIN is weaker than the password the session was
 * opened with, and a forgotten PIN would otherwise need an administrator).
 */
export const selfPinRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx, services } = routeContext(app);
  const refusals: ErrorName[] = [
    'not_an_employee',
    'employee_not_active',
    'validation_failed',
    'rate_limited',
  ];
  app.put(
    '/self/pin',
    {
      schema: {
        summary: 'Set my kiosk PIN',
        operationId: 'setOwnPin',
        description:
          'The kiosk PIN of the employee the signed-in person is: 4 to 8 digits, stored only as a slow hash, replacing any earlier PIN (audited as `employee.set_pin` by the person). The session is the proof: no current PIN is asked. An employee who does not work is refused (403 employee_not_active). At most 5 changes per person and 50 per address in 15 minutes, counted before the hash (429 rate_limited with Retry-After).',
        tags: ['Self-service'],
        body: SetPinBodySchema,
        response: { 200: SetPinResultSchema, ...sessionErrors(refusals, true) },
      },
    },
    async (request, reply) => {
      const person = requirePerson(request);
      // Before the slow hash: 5 changes per person and 50 per address in 15 minutes (429 rate_limited).
      await chargeAttempt(services.selfPinPersonLimiter, person.id, ctx.now(), reply, 'PIN changes');
      await chargeAttempt(services.selfPinAddressLimiter, request.ip, ctx.now(), reply, 'PIN changes');
      return setOwnPin(ctx, person, request.body.pin);
    },
  );
};
