import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** The Fastify instance a route plugin is given (with the TypeBox type provider). */
export type TypeBoxApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** What most routes use: the app's services and their context (the database and the clock). */
export function routeContext(app: TypeBoxApp) {
  return { services: app.services, ctx: app.services.ctx };
}

export type RouteContext = ReturnType<typeof routeContext>;
