/**
 * The one way the console talks to the server: JSON over fetch to the admin API, the session cookie
 * sent by the browser, the session's CSRF token on every state-changing call, and every error turned
 * into an `ApiProblem` from the server's problem document.
 */

export const ADMIN_API = '/api/admin/v1';

export interface Company {
  id: string;
  name: string;
  /** IANA zone; null when the company has none set (times are then shown in UTC). */
  timeZone: string | null;
}

/** The zone the console shows instants in: the company's, else UTC. */
export function companyZone(person: Pick<Person, 'company'>): string {
  return person.company.timeZone ?? 'UTC';
}

export interface Person {
  id: string;
  email: string;
  companyId: string;
  permissions: number[];
  superAdmin: boolean;
  /** The employee the person is (self-service: My day, My time, My absences); null for none. */
  employeeId: string | null;
  csrfToken: string;
  company: Company;
  /** The session's absolute end: the offline web clock is refused after it. */
  sessionExpiresAt: string;
}

export interface FieldProblem {
  field: string;
  message: string;
}

/** An error answer of the server (or the network), with the problem's stable name. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly title: string,
    readonly detail: string | null,
    readonly fieldErrors: FieldProblem[] = [],
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(detail ?? title);
  }

  /** The message to show a person: the detail when there is one, else the title. */
  get text(): string {
    return this.detail ?? this.title;
  }

  fieldError(field: string): string | undefined {
    return this.fieldErrors.find((e) => e.field === field || e.field.endsWith(`/${field}`))?.message;
  }
}

let csrfToken: string | null = null;
let onSessionEnded: (() => void) | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** The CSRF token held now (the web clock's sender checks it did not change between punches). */
export function currentCsrfToken(): string | null {
  return csrfToken;
}

/** Whether a session's CSRF token is held: writes may be sent (the web clock's queue waits for it). */
export function haveCsrfToken(): boolean {
  return csrfToken !== null;
}

/** Called whenever any call answers 401 session_required (expired, signed out elsewhere, deactivated). */
export function whenSessionEnds(handler: () => void): void {
  onSessionEnded = handler;
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

export interface ApiOptions {
  /** Ends the request when aborted (it then fails as "the server could not be reached"). */
  signal?: AbortSignal;
  /** Gives up after this long, the same way. */
  timeoutMs?: number;
  /** The CSRF token to send instead of the one held now. */
  csrfToken?: string | null;
}

export async function api<T>(
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
  options: ApiOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { ...extraHeaders, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const token = options.csrfToken === undefined ? csrfToken : options.csrfToken;
  if (!SAFE_METHODS.has(method) && token) headers['x-csrf-token'] = token;
  // A timeout and the caller's abort both end the request (as "the server could not be reached").
  const controller = new AbortController();
  const abort = () => controller.abort();
  options.signal?.addEventListener('abort', abort);
  if (options.signal?.aborted) abort();
  const timer = options.timeoutMs === undefined ? null : setTimeout(abort, options.timeoutMs);
  const finish = () => {
    if (timer !== null) clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
  };
  let response: Response;
  try {
    response = await fetch(`${ADMIN_API}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      signal: controller.signal,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    finish();
    throw new ApiProblem(
      0,
      'network',
      'The server could not be reached',
      'Check your connection and try again.',
    );
  }
  if (response.status === 204) {
    finish();
    return undefined as T;
  }
  let text: string;
  try {
    text = await response.text();
  } catch {
    throw new ApiProblem(0, 'network', 'The server could not be reached', 'The answer was cut off.');
  } finally {
    finish();
  }
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (response.ok) return parsed as T;
  const problem = (parsed ?? {}) as {
    error?: string;
    title?: string;
    detail?: string | null;
    errors?: FieldProblem[] | null;
  };
  const retryAfter = Number(response.headers.get('retry-after'));
  const error = new ApiProblem(
    response.status,
    problem.error ?? `http_${response.status}`,
    problem.title ?? `The server answered ${response.status}`,
    problem.detail ?? null,
    problem.errors ?? [],
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
  );
  if (response.status === 401 && error.error === 'session_required' && path !== '/session')
    onSessionEnded?.();
  throw error;
}

/** A message for any thrown value, for a status line. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiProblem) return error.text;
  return error instanceof Error ? error.message : String(error);
}

export const PERMISSIONS = {
  readEntries: 47,
  reports: 49,
  readEmployees: 52,
  readLeave: 72,
  manageKeys: 90,
  decideEntries: 91,
  manageEmployees: 92,
  manageCompany: 93,
  manageShifts: 97,
  manageLeave: 96,
} as const;

export function may(person: Pick<Person, 'permissions' | 'superAdmin'>, permission: number): boolean {
  return person.superAdmin || person.permissions.includes(permission);
}
