import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// The published description is plain JSON; it is walked as such.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON documents are walked as plain JSON
type Json = Record<string, any>;

interface Operation {
  pattern: RegExp;
  method: string;
  path: string;
  responses: Json;
}

/**
 * Holds every response the tests receive to the published OpenAPI description: the status must be
 * declared for the operation, the media type must be the declared one and the body must match its
 * schema. Paths the description does not cover (health, the description itself) are not checked.
 */
export class ContractChecker {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema(document, 'openapi.json');
    for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
      const pattern = new RegExp(
        `^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`,
      );
      for (const [method, operation] of Object.entries<Json>(item)) {
        this.operations.push({
          pattern,
          method: method.toUpperCase(),
          path,
          responses: operation.responses ?? {},
        });
      }
    }
  }

  /** Null when the response conforms (or is outside the description), else what is wrong. */
  check(
    method: string,
    url: string,
    status: number,
    contentType: string | null,
    body: string,
  ): string | null {
    const pathname = new URL(url, 'http://x').pathname;
    const operation = this.operations.find(
      (op) => op.method === method.toUpperCase() && op.pattern.test(pathname),
    );
    if (!operation) return null;
    const where = `${method.toUpperCase()} ${operation.path} → ${status}`;
    const declared = operation.responses[String(status)] ?? operation.responses.default;
    if (!declared) return `${where}: status not declared in the description`;
    const content: Json | undefined = declared.content;
    if (!content) return body.length === 0 ? null : `${where}: a body was sent but none is declared`;
    const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (!content[mediaType])
      return `${where}: media type ${mediaType || '(none)'} is not one of ${Object.keys(content).join(', ')}`;
    // A text media type (the timesheets' text/csv) is declared as a string: any text conforms.
    if (!mediaType.endsWith('json'))
      return content[mediaType].schema?.type === 'string'
        ? null
        : `${where}: ${mediaType} has no string schema`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return `${where}: body is not JSON`;
    }
    const validate = this.validatorFor(
      operation.path,
      operation.method,
      String(status) in operation.responses ? String(status) : 'default',
      mediaType,
    );
    if (validate(parsed)) return null;
    return `${where}: body does not match the schema: ${this.ajv.errorsText(validate.errors)} — body: ${body.slice(0, 300)}`;
  }

  private validatorFor(path: string, method: string, status: string, mediaType: string): ValidateFunction {
    const pointer = ['paths', path, method.toLowerCase(), 'responses', status, 'content', mediaType, 'schema']
      .map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1'))
      .join('/');
    const ref = `openapi.json#/${pointer}`;
    const cached = this.validators.get(ref);
    if (cached) return cached;
    const validate = this.ajv.compile({ $ref: ref });
    this.validators.set(ref, validate);
    return validate;
  }
}
