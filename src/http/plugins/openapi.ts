import fastifySwagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { DOCS_PATH, OPENAPI_PATH, TOKEN_PATH } from '../paths.js';
import { authenticate } from './authenticate.js';
import { DEVICE_SCOPE, DEVICE_SCOPE_LABEL, OAUTH2, describedScopes } from '../openapi-security.js';
import { FieldErrorSchema, ProblemSchema } from '../schemas/common.js';
import { MeSchema, TokenRequestSchema, TokenResponseSchema } from '../../modules/auth/schemas.js';
import { SCOPES, type ScopeId } from '../../modules/auth/scopes.js';
import {
  EmployeeListItemSchema,
  EmployeePageSchema,
  EmployeeRefSchema,
  EmployeeSelectorSchema,
  ExternalIdBodySchema,
  ExternalIdResultSchema,
} from '../../modules/employees/schemas.js';
import {
  ClockEventBatchBodySchema,
  ClockEventBatchItemSchema,
  ClockEventBatchResultSchema,
  ClockEventBodySchema,
  ShiftBodySchema,
  TimeEntryBreakSchema,
  TimeEntryPageSchema,
  TimeEntrySchema,
  WriteResultSchema,
} from '../../modules/time-tracking/schemas.js';
import { TimesheetPageSchema, TimesheetSchema } from '../../modules/timesheets/schemas.js';
import {
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  webhookDescriptions,
} from '../../modules/webhooks/schemas.js';
import {
  AttendanceExceptionSchema,
  PlannedShiftBatchBodySchema,
  PlannedShiftBatchResultSchema,
  PlannedShiftInputSchema,
  PlannedShiftSchema,
} from '../../modules/planned-shifts/schemas.js';
import { CORRECTION_NAMED_SCHEMAS } from '../../modules/corrections/schemas.js';
import { ABSENCE_NAMED_SCHEMAS } from '../../modules/absences/schemas.js';
import { CorrectionRequestSchema } from '../../modules/self-service/schemas.js';

const CLIENT_BASIC = 'clientBasic';

// Loosely typed on purpose: this module edits the generated document as plain JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON documents are walked as plain JSON
type Json = Record<string, any>;

/** The route-schema `security` of an operation that needs `scope` (null: any valid token). */
export function bearerSecurity(scope: ScopeId | null, ...alternatives: ScopeId[]) {
  return [
    { [OAUTH2]: scope === null ? [] : [scope] },
    ...alternatives.map((other) => ({ [OAUTH2]: [other] })),
  ];
}

const HEADER_NAMES: Record<string, string> = {
  'x-service-dry-run': 'X-Service-Dry-Run',
  'idempotency-key': 'Idempotency-Key',
  'if-match': 'If-Match',
};

const RESPONSE_HEADERS: Json = {
  'X-Correlation-Id': {
    description: 'Identifies the request; quote it to support. A valid `X-Correlation-Id` sent is echoed.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'The quota, e.g. `apikey;q=300;w=60`.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'The quota state, e.g. `limit=300, remaining=299, reset=60`.',
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': { description: 'Requests allowed per window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': {
    description: 'Seconds until a request is allowed again.',
    schema: { type: 'integer' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  'WWW-Authenticate': { description: 'The authentication challenge (RFC 6750).', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description:
      '`true` when the response is the stored result of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Cache-Control': {
    description: '`no-store`: token responses are never cached.',
    schema: { type: 'string' },
  },
};

const RATE_LIMIT_HEADERS = [
  'RateLimit-Policy',
  'RateLimit',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
];

const TAGS = [
  {
    name: 'Authentication',
    description: 'Exchange an API key for an access token (OAuth 2.0 client credentials).',
  },
  { name: 'Token', description: 'What the calling token is.' },
  { name: 'Employees', description: "The company's employees and their external (badge / HRIS) ids." },
  { name: 'Time tracking', description: 'Clock events, completed shifts and time entries.' },
  {
    name: 'Changes',
    description: "The company's change feed: every change, once, in causal order, to follow with a cursor.",
  },
  {
    name: 'Reports',
    description: 'Timesheets for payroll: worked, regular and overtime hours, as JSON or as a CSV file.',
  },
  {
    name: 'Planned shifts',
    description:
      'The plan beside the actual: planned shifts imported from a scheduler, and the attendance exceptions found against the punches.',
  },
  {
    name: 'Webhooks',
    description:
      'Signed deliveries of the change feed’s events to your endpoints (Standard Webhooks 1.0), retried for about three days.',
  },
  {
    name: 'Absences',
    description: 'Absence types, public holidays, absences with their approvals, and leave balances.',
  },
  {
    name: 'Kiosk',
    description:
      "A shared tablet at a workplace (issue 35): its enrolment with a single-use code, then with its device's token the names of its workplace's employees and who a badge or a PIN is; it punches through Time tracking.",
  },
];

/**
 * Schemas published under a name in `components.schemas`: wherever the generated document inlines one
 * of them, it is replaced by a `$ref`, so generators get named types (WriteResult, not
 * RecordClockEvent201Response) and readers see one definition.
 */
const NAMED_SCHEMAS: Record<string, unknown> = {
  EmployeePage: EmployeePageSchema,
  TimeEntryPage: TimeEntryPageSchema,
  TimesheetPage: TimesheetPageSchema,
  Timesheet: TimesheetSchema,
  EmployeeListItem: EmployeeListItemSchema,
  TimeEntry: TimeEntrySchema,
  WriteResult: WriteResultSchema,
  ClockEvent: ClockEventBodySchema,
  ClockEventBatch: ClockEventBatchBodySchema,
  ClockEventBatchItem: ClockEventBatchItemSchema,
  ClockEventBatchResult: ClockEventBatchResultSchema,
  TimeEntryBreak: TimeEntryBreakSchema,
  Shift: ShiftBodySchema,
  ExternalIdUpdate: ExternalIdBodySchema,
  ExternalIdResult: ExternalIdResultSchema,
  TokenDescription: MeSchema,
  TokenRequest: TokenRequestSchema,
  TokenResponse: TokenResponseSchema,
  EmployeeSelector: EmployeeSelectorSchema,
  EmployeeRef: EmployeeRefSchema,
  FieldError: FieldErrorSchema,
  Problem: ProblemSchema,
  WebhookEndpoint: WebhookEndpointSchema,
  WebhookDelivery: WebhookDeliverySchema,
  // Planned shifts (issue 33).
  PlannedShift: PlannedShiftSchema,
  PlannedShiftInput: PlannedShiftInputSchema,
  PlannedShiftBatch: PlannedShiftBatchBodySchema,
  PlannedShiftBatchResult: PlannedShiftBatchResultSchema,
  AttendanceException: AttendanceExceptionSchema,
  // Corrections (issue 30).
  ...CORRECTION_NAMED_SCHEMAS,
  ...ABSENCE_NAMED_SCHEMAS,
  // Self-service (issue 35): the data of the `correction.*` events and webhooks.
  CorrectionRequest: CorrectionRequestSchema,
};

/** A schema's identity for matching: key order and its own description do not count. */
function canonical(value: unknown, top = true): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, false)).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Json)
      .filter(([key]) => !(top && key === 'description'))
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v, false)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function hoistNamedSchemas(document: Json): void {
  const byShape = new Map<string, string>();
  const plain: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(NAMED_SCHEMAS)) {
    plain[name] = JSON.parse(JSON.stringify(schema)) as Json;
    byShape.set(canonical(plain[name]), name);
  }
  const replace = (node: unknown, self: string | null): unknown => {
    if (Array.isArray(node)) return node.map((item) => replace(item, self));
    if (!node || typeof node !== 'object') return node;
    const name = byShape.get(canonical(node));
    if (name && name !== self) {
      const description = (node as Json).description;
      const ref: Json = { $ref: `#/components/schemas/${name}` };
      if (description !== undefined && description !== plain[name]!.description)
        ref.description = description;
      return ref;
    }
    return Object.fromEntries(
      Object.entries(node as Json).map(([key, value]) => [key, replace(value, self)]),
    );
  };
  document.paths = replace(document.paths, null);
  document.components.schemas = Object.fromEntries(
    Object.entries(plain).map(([name, schema]) => [name, replace(schema, name)]),
  );
}

/** A problem response: the shared Problem schema, narrowed to the error names and codes of this status. */
function problemResponseSchema(schema: Json): Json {
  return {
    allOf: [
      { $ref: '#/components/schemas/Problem' },
      { type: 'object', properties: { error: schema.properties.error, code: schema.properties.code } },
    ],
  };
}

function headerRefs(names: string[]): Json {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** Shapes the generated document into the published one: media types, headers, security, tags. */
function finishDocument(document: Json): Json {
  document.components ??= {};
  document.components.headers = RESPONSE_HEADERS;
  document.tags = TAGS;
  for (const pathItem of Object.values<Json>(document.paths ?? {})) {
    for (const operation of Object.values<Json>(pathItem)) {
      const isToken = operation.operationId === 'issueToken';
      // A body that may be left out (an approval's note): Fastify's description always requires one.
      if (operation['x-optional-body'] === true) {
        operation.requestBody.required = false;
        delete operation['x-optional-body'];
      }
      const isWrite = (operation.parameters ?? []).some((p: Json) => p.name === 'idempotency-key');
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'header' && HEADER_NAMES[parameter.name])
          parameter.name = HEADER_NAMES[parameter.name];
      }
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        const code = Number(status);
        if (code >= 400 && !isToken && response.content?.['application/json']) {
          response.content = {
            'application/problem+json': {
              schema: problemResponseSchema(response.content['application/json'].schema),
            },
          };
        }
        const names = ['X-Correlation-Id', ...RATE_LIMIT_HEADERS];
        if (code === 429 || code === 503) names.push('Retry-After');
        if ((code === 401 || code === 403) && !isToken) names.push('WWW-Authenticate');
        if (code === 401 && isToken) names.push('WWW-Authenticate');
        if (isToken) names.push('Cache-Control');
        if (isWrite && code !== 401 && code !== 403 && code !== 429 && code < 500)
          names.push('Idempotent-Replayed');
        response.headers = { ...(response.headers ?? {}), ...headerRefs(names) };
      }
    }
  }
  hoistNamedSchemas(document);
  // OpenAPI 3.1: what each webhook delivery posts to an integrator's endpoint.
  document.webhooks = webhookDescriptions();
  return document;
}

/** The document as a token with `scopes` sees it: the operations it may call, `/me` and the token endpoint. */
function documentForScopes(document: Json, scopes: readonly string[] | null): Json {
  if (scopes === null) return document;
  const paths: Json = {};
  for (const [path, pathItem] of Object.entries<Json>(document.paths ?? {})) {
    const kept: Json = {};
    for (const [method, operation] of Object.entries<Json>(pathItem)) {
      // Security requirements are alternatives: the token may call the operation when it meets one.
      const requirements: string[][] = (operation.security ?? []).map(
        (requirement: Json) => requirement[OAUTH2] ?? [],
      );
      if (
        requirements.length === 0 ||
        requirements.some((needed) => needed.every((scope) => scopes.includes(scope)))
      )
        kept[method] = operation;
    }
    if (Object.keys(kept).length > 0) paths[path] = kept;
  }
  const usedTags = new Set(
    Object.values<Json>(paths).flatMap((item) => Object.values<Json>(item).flatMap((op) => op.tags ?? [])),
  );
  return { ...document, paths, tags: (document.tags ?? []).filter((tag: Json) => usedTags.has(tag.name)) };
}

/** @fastify/swagger's options: the document's head, its security schemes, and the token route's form body. */
function swaggerOptions(): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Punchclock public API',
        version: 'v1',
        description:
          'Company-scoped time and attendance API: record clock punches and completed shifts, read time entries, list employees. ' +
          'Fetched with a bearer token, this description lists only the operations that token may call.',
        contact: { name: 'Punchclock support' },
      },
      components: {
        securitySchemes: {
          [OAUTH2]: {
            type: 'oauth2',
            description:
              'OAuth 2.0 client credentials: exchange the API key for a 15-minute bearer token (JWT).',
            flows: {
              clientCredentials: {
                tokenUrl: TOKEN_PATH,
                scopes: {
                  ...Object.fromEntries(SCOPES.map((s) => [s.id, s.label])),
                  [DEVICE_SCOPE]: DEVICE_SCOPE_LABEL,
                },
              },
            },
          },
          [CLIENT_BASIC]: {
            type: 'http',
            scheme: 'basic',
            description:
              'At the token endpoint only: the client id and the API key as HTTP Basic credentials.',
          },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      if (url !== TOKEN_PATH || !schema) return { schema, url };
      // The token route reads its form body itself (OAuth's own error form), so the body schema is documentation only.
      return {
        schema: {
          ...schema,
          body: TokenRequestSchema,
          consumes: ['application/x-www-form-urlencoded'],
        } as never,
        url,
        route,
      };
    },
    transformObject: (documentObject) =>
      finishDocument((documentObject as { openapiObject: Json }).openapiObject) as never,
  };
}

/**
 * Registers the OpenAPI 3.1 description (generated by @fastify/swagger from the same TypeBox schemas
 * that validate requests) and the Swagger UI reference page. Must run before any route is added.
 */
export const openApiPlugin = fp(
  async (app: FastifyInstance) => {
    const { services } = app;
    await app.register(fastifySwagger, swaggerOptions());

    const cache = new Map<string, Json>();
    const publishedFor = (scopes: readonly string[] | null): Json => {
      const base = services.urls.publicBaseUrl;
      const cacheKey = `${base} ${scopes === null ? '*' : [...scopes].sort().join(',')}`;
      let document = cache.get(cacheKey);
      if (!document) {
        const generated = structuredClone(app.swagger() as Json);
        generated.servers = [{ url: base, description: 'This deployment' }];
        generated.components.securitySchemes[OAUTH2].flows.clientCredentials.tokenUrl =
          `${base}${TOKEN_PATH}`;
        if (services.config.deprecation) {
          for (const pathItem of Object.values<Json>(generated.paths))
            for (const operation of Object.values<Json>(pathItem)) operation.deprecated = true;
          generated.info.description += ` v1 is deprecated and will be switched off on ${services.config.deprecation.sunset}.`;
        }
        document = documentForScopes(generated, scopes);
        cache.set(cacheKey, document);
      }
      return document;
    };

    // The reference page may be opened under any name of the host (localhost, a LAN address, 0.0.0.0),
    // and the server sends no CORS headers: its copy points at its own origin rather than PUBLIC_BASE_URL.
    let pageDocument: Json | undefined;
    const forPage = (): Json => {
      if (!pageDocument) {
        pageDocument = structuredClone(publishedFor(null));
        const basePath = new URL(services.urls.publicBaseUrl).pathname.replace(/\/+$/, '');
        pageDocument.servers = [{ url: basePath || '/', description: 'This deployment' }];
        pageDocument.components.securitySchemes[OAUTH2].flows.clientCredentials.tokenUrl =
          `${basePath}${TOKEN_PATH}`;
      }
      return pageDocument;
    };

    const guard = authenticate({ ...services, limiter: services.resourceLimiter }, null, 'allowed');
    app.get(
      OPENAPI_PATH,
      { schema: { hide: true } },
      async (request: FastifyRequest, reply: FastifyReply) => {
        // No token: the whole description. A token: only what it may call; a bad token is refused, not ignored.
        if (request.headers.authorization !== undefined) await guard.call(app, request, reply);
        services.ensureRateLimitHeaders(request, reply);
        reply.header('cache-control', 'no-cache');
        return publishedFor(describedScopes(request.principal));
      },
    );

    // In a scope of its own, so that the hook also covers the page's static files.
    await app.register(async (docs) => {
      docs.addHook('onRequest', async (request, reply) => services.ensureRateLimitHeaders(request, reply));
      await docs.register(fastifySwaggerUi, {
        routePrefix: DOCS_PATH,
        uiConfig: {
          tryItOutEnabled: true,
          displayOperationId: false,
          persistAuthorization: false,
          showCommonExtensions: true,
        },
        transformSpecification: () => forPage(),
        transformSpecificationClone: false,
      });
    });
  },
  { name: 'openapi' },
);
