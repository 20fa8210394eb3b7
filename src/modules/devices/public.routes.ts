import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticate, requirePrincipal } from '../../http/plugins/authenticate.js';
import { deviceSecurity } from '../../http/openapi-security.js';
import { chargeAttempt } from '../../http/plugins/rate-limit/headers.js';
import { described } from '../../http/schemas/common.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas/responses.js';
import { type TypeBoxApp } from '../../http/route-context.js';
import { identify, kioskEmployees } from './kiosk.js';
import { dummyPinHash } from './pins.js';
import {
  DeviceCredentialSchema,
  DeviceHeadersSchema,
  EnrolBodySchema,
  IdentifyBodySchema,
  IdentifyResultSchema,
  KioskEmployeeListSchema,
} from './schemas.js';
import { enrolWithCode } from './service.js';

/*
 * Kiosk devices in the public API (issue 35): a tablet's enrolment with its code, and the two reads a
 * device's token has beside the time clock's punches. Any other token is 403 insufficient_scope here.
 */

function enrolRoute(app: TypeBoxApp) {
  const { services } = app;
  app.post(
    '/devices/enrol',
    {
      schema: {
        summary: 'Enrol a kiosk device with its code',
        operationId: 'enrolDevice',
        description:
          'No bearer token: the body carries the single-use enrolment code a person holding permission 92 made in the console or with `device enrol` (valid 15 minutes). ' +
          'The answer is the device credential, in this answer only: keep it on the device and exchange it at POST /oauth/token (client id `dev_…`) for a token whose principal is `device`. ' +
          'A wrong, used or expired code is `401 invalid_enrolment_code`; at most 20 codes per client address in 15 minutes.',
        tags: ['Kiosk'],
        security: [],
        body: EnrolBodySchema,
        response: {
          201: described(DeviceCredentialSchema, 'Enrolled'),
          ...errorResponses(['invalid_enrolment_code', 'validation_failed', 'rate_limited', ...BODY_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      await chargeAttempt(
        services.kioskEnrolLimiter,
        request.ip,
        services.ctx.now(),
        reply,
        'enrolment attempts',
      );
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(await enrolWithCode(services.ctx, request.body.code));
    },
  );
}

function employeesRoute(app: TypeBoxApp) {
  const { services } = app;
  app.get(
    '/kiosk/employees',
    {
      onRequest: authenticate({ ...services, limiter: services.resourceLimiter }, null, 'only'),
      schema: {
        summary: "The names a kiosk offers: its workplace's employees",
        operationId: 'listKioskEmployees',
        description:
          "A kiosk device's token only. The active employees of the device's workplace as `{id, displayName}`, for choosing a name before a PIN; " +
          'empty when the workplace is badge-only (`kioskBadgeOnly`). Never who is clocked in.',
        tags: ['Kiosk'],
        security: deviceSecurity(),
        headers: DeviceHeadersSchema,
        response: {
          200: described(KioskEmployeeListSchema, 'The names, alphabetically'),
          ...errorResponses(['invalid_token', 'insufficient_scope', 'rate_limited']),
        },
      },
    },
    async (request) => kioskEmployees(services.ctx, requirePrincipal(request)),
  );
}

function identifyRoute(app: TypeBoxApp) {
  const { services } = app;
  app.post(
    '/kiosk/identify',
    {
      onRequest: authenticate({ ...services, limiter: services.resourceLimiter }, null, 'only'),
      schema: {
        summary: 'Identify an employee at a kiosk by badge or PIN',
        operationId: 'identifyAtKiosk',
        description:
          "A kiosk device's token only. `{badge}` (what a keyboard-wedge reader typed: the employee's external id) or `{employeeId, pin}` (4 to 8 digits). " +
          'An unknown badge, or an employee of another workplace, is `404 employee_not_found`; a wrong PIN `401 invalid_pin`. ' +
          "5 wrong PINs lock that employee's PIN at this device and 20 wrong lock the device, each for 15 minutes: `429 pin_locked` with `Retry-After`. " +
          'At a badge-only workplace (`kioskBadgeOnly`) the PIN form is `403 kiosk_badge_only`. ' +
          'Unknown badges are counted per device: after 20 within 15 minutes every badge is refused at this device with `429 badge_locked` and `Retry-After` (the seconds until the oldest of them is 15 minutes old). ' +
          'PIN attempts are also limited per client address.',
        tags: ['Kiosk'],
        security: deviceSecurity(),
        headers: DeviceHeadersSchema,
        body: IdentifyBodySchema,
        response: {
          200: described(IdentifyResultSchema, 'The employee and their state'),
          ...errorResponses([
            'invalid_token',
            'invalid_pin',
            'insufficient_scope',
            'employee_not_found',
            'validation_failed',
            'pin_locked',
            'badge_locked',
            'kiosk_badge_only',
            'rate_limited',
            ...BODY_ERRORS,
          ]),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      if (request.body.pin !== undefined)
        await chargeAttempt(services.kioskPinLimiter, request.ip, services.ctx.now(), reply, 'PIN attempts');
      return identify(services.ctx, principal, request.body);
    },
  );
}

export const devicePublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The stand-in hash for an employee without a PIN, made at start-up (not on the first check, which
  // would then take longer than the others).
  void dummyPinHash();
  enrolRoute(app);
  employeesRoute(app);
  identifyRoute(app);
};
