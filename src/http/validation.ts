import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { type FieldError } from '../domain/errors.js';

/*
 * Fastify's default Ajv coerces types (`{"externalId": 123}` becomes "123", `limit=0x10` becomes 16) and
 * fills defaults; a strict API needs neither. Bodies and headers are validated as sent. Query strings and
 * path parameters are text by nature, so integers and booleans declared in their schemas are converted
 * here, strictly (only plain decimal digits, only `true`/`false`), before the same non-coercing validation.
 */
function createAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    strict: false,
  });
  addFormats.default(ajv, { mode: 'full' });
  return ajv;
}

const ajv = createAjv();

type JsonSchema = { type?: unknown; properties?: Record<string, JsonSchema>; anyOf?: JsonSchema[] };

function declaredTypes(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (schema.anyOf) return schema.anyOf.flatMap(declaredTypes);
  return [];
}

function convertTextValues(schema: JsonSchema, data: unknown): unknown {
  if (!data || typeof data !== 'object' || !schema.properties) return data;
  const input = data as Record<string, unknown>;
  const output: Record<string, unknown> = { ...input };
  for (const [name, propertySchema] of Object.entries(schema.properties)) {
    const value = input[name];
    if (typeof value !== 'string') continue;
    const types = declaredTypes(propertySchema);
    if ((types.includes('integer') || types.includes('number')) && /^-?\d{1,15}$/.test(value))
      output[name] = Number(value);
    else if (types.includes('boolean') && (value === 'true' || value === 'false'))
      output[name] = value === 'true';
  }
  return output;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  // Header schemas document the write headers; their values are parsed where they are used.
  if (httpPart === 'headers') return (data: unknown) => ({ value: data });
  const validate = ajv.compile(schema as object);
  const convert = httpPart === 'querystring' || httpPart === 'params';
  return (data: unknown) => {
    const value = convert ? convertTextValues(schema as JsonSchema, data) : data;
    if (validate(value)) return { value };
    const error = new Error('validation failed') as Error & { validation: ErrorObject[] };
    error.validation = validate.errors ?? [];
    return { error };
  };
};

function fieldOf(error: ErrorObject, context: string): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required') path.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty));
  if (path.length === 0) return context === 'body' ? 'body' : context;
  // An array's items are named by position: `events[3].occurredAt`.
  return path.reduce(
    (name, part, i) => (/^\d+$/.test(part) ? `${name}[${part}]` : i === 0 ? part : `${name}.${part}`),
    '',
  );
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'pattern':
      return 'contains a character that is not allowed';
    case 'format':
      return `must be a valid ${String(error.params.format)}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** One entry per wrong field (the first reason for each), however many fields are wrong. */
export function fieldErrorsFromAjv(errors: ErrorObject[], context: string): FieldError[] {
  const byField = new Map<string, FieldError>();
  const allowedValues = new Map<string, unknown[]>();
  for (const error of errors)
    if (error.keyword === 'const') {
      const field = fieldOf(error, context);
      allowedValues.set(field, [...(allowedValues.get(field) ?? []), error.params.allowedValue]);
    }
  for (const error of errors) {
    // anyOf/oneOf failures repeat what their branches already said.
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    const field = fieldOf(error, context);
    if (byField.has(field)) continue;
    const allowed = allowedValues.get(field);
    byField.set(
      field,
      error.keyword === 'const' && allowed
        ? {
            field,
            message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`,
            code: 'enum',
          }
        : { field, message: messageOf(error), code: error.keyword },
    );
  }
  if (byField.size === 0 && errors[0]) {
    const field = fieldOf(errors[0], context);
    byField.set(field, { field, message: messageOf(errors[0]), code: errors[0].keyword });
  }
  return [...byField.values()];
}

/** The keywords that judge a value rather than the shape of a document (kept out of shapeOf). */
const VALUE_KEYWORDS = new Set(['format', 'enum', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum']);

/**
 * The same JSON schema with only its shape: object fields (required, unknown), JSON types, array sizes.
 * A batch (POST /time-clock/events/batch) is refused whole for a wrong shape, and judges each item's
 * values (formats, enums, lengths) as the item's own result.
 */
export function shapeOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(shapeOf);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema as Record<string, unknown>)
      .filter(([key]) => !VALUE_KEYWORDS.has(key))
      .map(([key, value]) => [key, key === 'properties' ? mapValues(value, shapeOf) : shapeOf(value)]),
  );
}

function mapValues(value: unknown, f: (v: unknown) => unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, f(v)]));
}

/** A route's validator that checks the body's shape only (see shapeOf); other parts as usual. */
export const shapeValidatorCompiler: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body'
    ? validatorCompiler({ ...route, schema: shapeOf(route.schema) as typeof route.schema })
    : validatorCompiler(route);

/** A body check with the routes' own rules: the field errors a route would answer, or null when valid. */
export function compileBodyCheck(schema: object): (data: unknown) => FieldError[] | null {
  const validate = ajv.compile(schema);
  return (data) => (validate(data) ? null : fieldErrorsFromAjv(validate.errors ?? [], 'body'));
}
