import type { RouteOptions } from 'fastify';
import { ADMIN_OPENAPI_PATH } from '../paths.js';

// The document is plain JSON; it is built and walked as such.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON documents are walked as plain JSON
type Json = Record<string, any>;

/** An admin route as the document needs it. */
export interface AdminRoute {
  method: string;
  url: string;
  schema: Json;
}

/** Routes anyone may call (sign-in, the session probe, accepting an invitation, this document). */
const OPEN = new Set([
  'POST /session',
  'GET /session',
  'POST /invitations/accept',
  'GET /openapi.json',
  'GET /sso/lookup',
  'GET /sso/start',
  'GET /sso/callback',
]);

const TAGS = [
  { name: 'Session', description: 'Sign in and out; accept an invitation.' },
  { name: 'API keys', description: "The company's API keys (permission 90)." },
  { name: 'Employees', description: "The company's employees (read: 52; create, change, delete: 92)." },
  { name: 'Time entries', description: 'Read (47), approve or reject and confirm days (91).' },
  { name: 'Company', description: "The company's settings (read: anyone signed in; change: 93)." },
  { name: 'Now', description: 'Who is clocked in now, who is late or not yet in (permission 47).' },
  {
    name: 'Roster',
    description: "A workplace's planned shifts and exceptions (read: 47 or 97; plan, change, publish: 97).",
  },
  { name: 'Audit log', description: 'Who did what, when (permission 93 or super admin).' },
  { name: 'Timesheets', description: 'Timesheets and the payroll CSV (permission 49).' },
  { name: 'Webhooks', description: "The company's webhook endpoints and deliveries (permission 93)." },
  {
    name: 'Single sign-on',
    description: "Sign-in with the company's OpenID Provider; its configuration (permission 93).",
  },
  {
    name: 'Absences',
    description:
      'Team calendar, requests and balances (read: 72; decide: 96); absence types and holidays (change: 93).',
  },
  {
    name: 'Kiosk devices',
    description:
      "Shared tablets at a workplace: enrol, list, revoke, refused punches; a workplace's badge-only switch and employees' PINs (permission 92).",
  },
  {
    name: 'Self-service',
    description:
      "A person linked to an employee: that employee's own day, web clock, entries, timesheet, absences and correction requests; no permission needed, nobody else's data (issue 35).",
  },
  {
    name: 'Correction requests',
    description:
      "Employees' correction requests: see, approve (applied as a correction) or reject (permission 91).",
  },
];

/** The route's schema as plain JSON (TypeBox's symbols dropped). */
function plain(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

/** Collects the routes of the admin plugin (every method but the HEAD twins Fastify adds). */
export function collectRoute(routes: AdminRoute[], options: RouteOptions): void {
  const methods = Array.isArray(options.method) ? options.method : [options.method];
  for (const method of methods) {
    if (method === 'HEAD' || !options.schema) continue;
    routes.push({ method, url: options.url, schema: plain(options.schema) });
  }
}

function parameters(schema: Json | undefined, where: 'path' | 'query' | 'header'): Json[] {
  if (!schema?.properties) return [];
  const required: string[] = schema.required ?? [];
  return Object.entries<Json>(schema.properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.includes(name),
    schema: property,
  }));
}

/** A route's path, query and header parameters (the request headers its schema declares). */
function parametersOf(schema: Json): Json[] {
  return [
    ...parameters(schema.params, 'path'),
    ...parameters(schema.querystring, 'query'),
    ...parameters(schema.headers, 'header'),
  ];
}

/**
 * The admin API's own OpenAPI 3.1 document, made from the same route schemas that validate its
 * requests and serialise its responses. It is not part of the public description: the admin routes
 * are hidden from that one.
 */
export function adminOpenApiDocument(routes: readonly AdminRoute[], prefix: string, baseUrl: string): Json {
  const paths: Json = {};
  for (const route of routes) {
    if (route.url === ADMIN_OPENAPI_PATH) continue;
    const relative = route.url.slice(prefix.length);
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const { schema } = route;
    const open = OPEN.has(`${route.method} ${relative}`);
    const write = route.method !== 'GET';
    const responses: Json = {};
    for (const [status, response] of Object.entries<Json>(schema.response ?? {})) {
      const code = Number(status);
      const { description, ...body } = response;
      if (code === 204) {
        responses[status] = { description: description ?? 'No content' };
        continue;
      }
      if (code >= 300 && code < 400) {
        const location = { description: 'where the browser goes next', schema: { type: 'string' } };
        responses[status] = { description: description ?? 'Redirect', headers: { Location: location } };
        continue;
      }
      // A response given with its media types (a CSV file) is described as given.
      if (body.content) {
        responses[status] = { description: description ?? 'OK', content: body.content };
        continue;
      }
      responses[status] = {
        description: description ?? 'OK',
        content: { [code >= 400 ? 'application/problem+json' : 'application/json']: { schema: body } },
      };
    }
    const operation: Json = {
      operationId: schema.operationId,
      summary: schema.summary,
      description: schema.description,
      tags: schema.tags ?? [],
      security: open ? [] : [write ? { consoleSession: [], csrfToken: [] } : { consoleSession: [] }],
      parameters: parametersOf(schema),
      responses,
    };
    if (schema.body)
      operation.requestBody = { required: true, content: { 'application/json': { schema: schema.body } } };
    if (operation.parameters.length === 0) delete operation.parameters;
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Punchclock admin API',
      version: 'v1',
      contact: { name: 'Punchclock support' },
      description:
        "The console's API: a person signed in with a session cookie manages their own company. " +
        "Every state-changing request needs the X-CSRF-Token of the session and the console's Origin. " +
        'Not part of the public API: it may change with the console.',
    },
    servers: [{ url: baseUrl, description: 'This deployment' }],
    tags: TAGS,
    components: {
      securitySchemes: {
        consoleSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'pc_session',
          description: 'The session cookie set by POST /session (HttpOnly, SameSite=Lax).',
        },
        csrfToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-CSRF-Token',
          description:
            "The session's csrfToken (from POST or GET /session), on every state-changing request.",
        },
      },
    },
    paths,
  };
}
