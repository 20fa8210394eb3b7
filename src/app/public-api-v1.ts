import type { FastifyPluginAsync } from 'fastify';
import { meRoutes } from '../modules/auth/me.routes.js';
import { tokenRoutes } from '../modules/auth/token.routes.js';
import { changeFeedRoutes } from '../modules/events/routes.js';
import { employeeRoutes } from '../modules/employees/routes.js';
import { timeTrackingRoutes } from '../modules/time-tracking/routes.js';
import { timesheetRoutes } from '../modules/timesheets/routes.js';
import { webhookRoutes } from '../modules/webhooks/routes.js';

/** v1 of the public API: its routes, registered once with `prefix: '/api/public/v1'` (see build-app.ts). */
export const publicApiV1: FastifyPluginAsync = async (app) => {
  await app.register(tokenRoutes);
  await app.register(meRoutes);
  await app.register(employeeRoutes);
  await app.register(timeTrackingRoutes);
  await app.register(changeFeedRoutes);
  await app.register(timesheetRoutes);
  await app.register(webhookRoutes);
};
