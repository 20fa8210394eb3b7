import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { type Services } from '../services.js';
import {
  type ResolvedSession,
  type SessionSettings,
  csrfTokenMatches,
  hasPermission,
  resolveSession,
} from '../../modules/people/service.js';
import { type ConsolePerson } from '../../modules/people/person.js';

declare module 'fastify' {
  interface FastifyRequest {
    consoleSession: ResolvedSession | null;
  }
}

/** The console's session cookie. */
export const SESSION_COOKIE = 'pc_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function sessionSettings(services: Pick<Services, 'config'>): SessionSettings {
  return {
    idleMinutes: services.config.consoleSessionIdleMinutes,
    maxHours: services.config.consoleSessionMaxHours,
  };
}

/** The value of cookie `name` in the request's Cookie header, or null. */
export function readCookie(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return /^[A-Za-z0-9_-]{1,200}$/.test(value) ? value : null;
  }
  return null;
}

/** Secure when the public base URL is https, or when this request came over https (a TLS proxy, TRUST_PROXY). */
function secureCookies(services: Services, request: FastifyRequest): boolean {
  return services.urls.publicBaseUrl.startsWith('https:') || request.protocol === 'https';
}

/**
 * Sets the session cookie: HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site
 * subrequests or posts), Secure when the public base URL is https. A session cookie (no Max-Age): the
 * server ends the session on its own timeouts.
 */
export function setSessionCookie(services: Services, reply: FastifyReply, sessionId: string): void {
  const secure = secureCookies(services, reply.request);
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])];
  reply.header('set-cookie', [`${SESSION_COOKIE}=${sessionId}`, ...attributes].join('; '));
}

export function clearSessionCookie(services: Services, reply: FastifyReply): void {
  const attributes = [
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    'Max-Age=0',
    'Expires=Thu, 01 Jan 1970 00:00:00 GMT',
    ...(secureCookies(services, reply.request) ? ['Secure'] : []),
  ];
  reply.header('set-cookie', [`${SESSION_COOKIE}=`, ...attributes].join('; '));
}

/** The origin a browser showing the console sends: PUBLIC_BASE_URL's, else this request's own. */
function expectedOrigin(request: FastifyRequest, services: Services): string {
  if (services.config.publicBaseUrlSetting !== null)
    return new URL(services.config.publicBaseUrlSetting).origin;
  return `${request.protocol}://${request.host}`;
}

/**
 * The Origin check: a sent Origin must be the console's own; with `required`, one must be sent
 * (browsers send it on every POST, PATCH and DELETE, same-origin included).
 */
export function checkOrigin(request: FastifyRequest, services: Services, required: boolean): void {
  const origin = request.headers.origin;
  if (origin === undefined) {
    if (required) throw new ApiError('csrf_failed', 'the Origin header is missing');
    return;
  }
  if (origin !== expectedOrigin(request, services))
    throw new ApiError('csrf_failed', 'the request comes from another origin');
}

/**
 * Route guard of the admin API: a live console session (401 session_required otherwise; a bearer
 * token is not a session and is ignored), then, for state-changing methods, the session's CSRF token
 * in X-CSRF-Token and the console's own Origin (403 csrf_failed).
 */
export function consoleGuard(services: Services): onRequestAsyncHookHandler {
  const settings = sessionSettings(services);
  return async (request: FastifyRequest) => {
    const session = await resolveSession(services.ctx, settings, readCookie(request, SESSION_COOKIE));
    if (!session) throw new ApiError('session_required', 'sign in to the console first');
    request.consoleSession = session;
    if (SAFE_METHODS.has(request.method)) return;
    checkOrigin(request, services, true);
    const header = request.headers['x-csrf-token'];
    if (!csrfTokenMatches(session, typeof header === 'string' ? header : undefined))
      throw new ApiError('csrf_failed', 'the X-CSRF-Token header is missing or wrong');
  };
}

/** The signed-in person of a guarded route. */
export function requirePerson(request: FastifyRequest): ConsolePerson {
  if (!request.consoleSession) throw new ApiError('session_required');
  return request.consoleSession.person;
}

/** The person, who must hold `permission` (or be a super admin): 403 forbidden otherwise. */
export function requirePermission(request: FastifyRequest, permission: number): ConsolePerson {
  const person = requirePerson(request);
  if (!hasPermission(person, permission))
    throw new ApiError('forbidden', `this needs permission ${permission}`);
  return person;
}
