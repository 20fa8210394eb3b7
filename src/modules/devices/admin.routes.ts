import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../http/plugins/console-session.js';
import { IdParamsSchema } from '../../http/schemas/common.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { type TypeBoxApp } from '../../http/route-context.js';
import { PERMISSION_MANAGE_EMPLOYEES } from '../auth/scopes.js';
import { consoleSetPin } from './pins.js';
import {
  BadgeOnlyBodySchema,
  BadgeOnlyResultSchema,
  DeviceListSchema,
  DeviceSchema,
  EnrolDeviceBodySchema,
  EnrolmentSchema,
  RefusalListSchema,
  SetPinBodySchema,
  SetPinResultSchema,
} from './schemas.js';
import {
  consoleDeviceRefusals,
  consoleEnrolDevice,
  consoleListDevices,
  consoleRevokeDevice,
  consoleSetBadgeOnly,
} from './service.js';

/**
 * Kiosk devices in the admin API (issue 35; docs/admin-api-contract.md): list, enrol, revoke, the
 * refused punches of a device, a workplace's badge-only switch and an employee's PIN. Permission 92;
 * only the person's own company is reached.
 */
export const deviceAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app.services;
  const tags = ['Kiosk devices'];

  app.get(
    '/devices',
    {
      schema: {
        summary: "The company's kiosk devices and its workplaces' kiosk settings",
        operationId: 'listDevices',
        description: 'Each device with its last contact, its queue and its refused punches. Permission 92.',
        tags,
        response: { 200: DeviceListSchema, ...sessionErrors(['forbidden']) },
      },
    },
    async (request) => consoleListDevices(ctx, requirePermission(request, PERMISSION_MANAGE_EMPLOYEES)),
  );

  app.post(
    '/devices',
    {
      schema: {
        summary: 'Enrol a kiosk device',
        operationId: 'enrolKioskDevice',
        description:
          'A device of a workplace and its enrolment code, single-use and valid 15 minutes, shown in this answer only. Permission 92.',
        tags,
        body: EnrolDeviceBodySchema,
        response: {
          201: EnrolmentSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_EMPLOYEES);
      return reply.code(201).send(await consoleEnrolDevice(ctx, person, request.body));
    },
  );

  deviceChangeRoutes(app);
  kioskSettingRoutes(app);
};

/** Revoke a device, read its refused punches. */
function deviceChangeRoutes(app: TypeBoxApp) {
  const { ctx } = app.services;
  const tags = ['Kiosk devices'];
  app.post(
    '/devices/:id/revoke',
    {
      schema: {
        summary: 'Revoke a kiosk device',
        operationId: 'revokeKioskDevice',
        description: 'The device stops at once: its next request is 401 invalid_token. Permission 92.',
        tags,
        params: IdParamsSchema,
        response: { 200: DeviceSchema, ...sessionErrors(['forbidden', 'not_found'], true) },
      },
    },
    async (request) =>
      consoleRevokeDevice(ctx, requirePermission(request, PERMISSION_MANAGE_EMPLOYEES), request.params.id),
  );

  app.get(
    '/devices/:id/refusals',
    {
      schema: {
        summary: 'Punches a kiosk device sent that were refused',
        operationId: 'listDeviceRefusals',
        description: 'The latest 100, newest first, with the reason. Permission 92.',
        tags,
        params: IdParamsSchema,
        response: { 200: RefusalListSchema, ...sessionErrors(['forbidden', 'not_found']) },
      },
    },
    async (request) =>
      consoleDeviceRefusals(ctx, requirePermission(request, PERMISSION_MANAGE_EMPLOYEES), request.params.id),
  );
}

/** A workplace's badge-only switch and an employee's PIN. */
function kioskSettingRoutes(app: TypeBoxApp) {
  const { ctx } = app.services;
  const tags = ['Kiosk devices'];
  app.put(
    '/workplaces/:id/kiosk',
    {
      schema: {
        summary: "A workplace's kiosk setting (badge only)",
        operationId: 'setWorkplaceKiosk',
        description:
          '`kioskBadgeOnly`: its kiosks list no names; employees identify by badge. Permission 92.',
        tags,
        params: IdParamsSchema,
        body: BadgeOnlyBodySchema,
        response: {
          200: BadgeOnlyResultSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request) =>
      consoleSetBadgeOnly(
        ctx,
        requirePermission(request, PERMISSION_MANAGE_EMPLOYEES),
        request.params.id,
        request.body.kioskBadgeOnly,
      ),
  );

  app.put(
    '/employees/:id/pin',
    {
      schema: {
        summary: "Set an employee's kiosk PIN",
        operationId: 'setEmployeePin',
        description: '4 to 8 digits, stored only as a slow hash; replaces any earlier PIN. Permission 92.',
        tags,
        params: IdParamsSchema,
        body: SetPinBodySchema,
        response: {
          200: SetPinResultSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request) =>
      consoleSetPin(
        ctx,
        requirePermission(request, PERMISSION_MANAGE_EMPLOYEES),
        request.params.id,
        request.body.pin,
      ),
  );
}
