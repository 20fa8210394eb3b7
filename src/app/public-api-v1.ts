import type { FastifyPluginAsync } from 'fastify';
import { absencePublicRoutes } from '../modules/absences/public.routes.js';
import { meRoutes, tokenRoutes } from '../modules/auth/public.routes.js';
import { correctionRoutes } from '../modules/corrections/public.routes.js';
import { employeeRoutes } from '../modules/employees/public.routes.js';
import { changeFeedRoutes } from '../modules/events/public.routes.js';
import { timeTrackingRoutes } from '../modules/time-tracking/public.routes.js';
import { timesheetRoutes } from '../modules/timesheets/public.routes.js';
import { webhookRoutes } from '../modules/webhooks/public.routes.js';
import { plannedShiftRoutes } from '../modules/planned-shifts/public.routes.js';
import { devicePublicRoutes } from '../modules/devices/public.routes.js';

/** v1 of the public API: its routes, registered once with `prefix: '/api/public/v1'` (see build-app.ts). */
export const publicApiV1: FastifyPluginAsync = async (app) => {
  await app.register(tokenRoutes);
  await app.register(meRoutes);
  await app.register(employeeRoutes);
  await app.register(timeTrackingRoutes);
  await app.register(correctionRoutes);
  await app.register(changeFeedRoutes);
  await app.register(timesheetRoutes);
  await app.register(webhookRoutes);
  await app.register(plannedShiftRoutes);
  await app.register(absencePublicRoutes);
  await app.register(devicePublicRoutes);
};
