import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Services } from './services.js';

/** The Fastify instance a route plugin is given (with the TypeBox type provider). */
export type TypeBoxApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** What most routes use: the app's services and their context (the database and the clock). */
export function routeContext(app: TypeBoxApp) {
  return { services: app.services, ctx: app.services.ctx };
}

export type RouteContext = ReturnType<typeof routeContext>;

/** The public base URL, or this request's own origin when PUBLIC_BASE_URL is unset. */
export function baseUrlOf(services: Services, request: FastifyRequest): string {
  return services.config.publicBaseUrlSetting ?? `${request.protocol}://${request.host}`;
}

/** Whether cookies are Secure: the public base URL is https, or this request came over https. */
export function secureCookies(services: Services, request: FastifyRequest): boolean {
  return services.urls.publicBaseUrl.startsWith('https:') || request.protocol === 'https';
}
