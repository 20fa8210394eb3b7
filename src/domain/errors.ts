/**
 * The error catalogue: every error name of the public API with its HTTP status, its numeric code and
 * its title. Codes are stable forever once published (the spec fixes 2904 and 1800); new errors get
 * new numbers, old numbers are never reused.
 */
export const ERROR_CATALOGUE = {
  bad_request: { status: 400, code: 1400, title: 'Bad request' },
  invalid_token: { status: 401, code: 1401, title: 'Invalid or missing access token' },
  insufficient_scope: { status: 403, code: 1403, title: 'Token lacks the required scope' },
  time_tracking_disabled: { status: 403, code: 2403, title: 'Time tracking is disabled for this company' },
  forbidden: { status: 403, code: 1404, title: 'Forbidden' },
  employee_not_found: { status: 404, code: 2404, title: 'Employee not found' },
  not_found: { status: 404, code: 1405, title: 'Not found' },
  method_not_allowed: { status: 405, code: 1406, title: 'Method not allowed' },
  already_clocked_in: { status: 409, code: 2904, title: 'Employee is already clocked in' },
  no_open_session: { status: 409, code: 2905, title: 'No open session to clock out of' },
  clock_out_before_clock_in: { status: 409, code: 2906, title: 'Clock-out is before the clock-in' },
  session_too_long: { status: 409, code: 2907, title: 'Session would be 24 hours or longer' },
  overlaps_existing_entry: { status: 409, code: 2908, title: 'Overlaps an existing time entry' },
  day_locked: { status: 409, code: 2909, title: 'Day is locked' },
  business_rule_violation: { status: 409, code: 2910, title: 'Business rule violation' },
  already_exists: { status: 409, code: 2911, title: 'Already exists' },
  already_on_break: { status: 409, code: 2912, title: 'Employee is already on a break' },
  not_on_break: { status: 409, code: 2913, title: 'No break in progress to end' },
  break_out_of_order: { status: 409, code: 2914, title: 'Break punch is earlier than what it follows' },
  // Corrections (issue 30).
  own_entry: {
    status: 403,
    code: 2415,
    title: "A person may not decide on or correct their own employee's entries",
  },
  invalid_status_transition: {
    status: 409,
    code: 2915,
    title: "The entry's status does not allow this change",
  },
  entry_too_old: {
    status: 409,
    code: 2916,
    title: 'The entry is older than 400 days; it can no longer be changed',
  },
  version_mismatch: {
    status: 412,
    code: 1412,
    title: 'The entry changed meanwhile (If-Match names another version)',
  },
  idempotency_in_flight: { status: 409, code: 1409, title: 'Request with this Idempotency-Key is in flight' },
  cursor_expired: { status: 410, code: 1410, title: 'Cursor older than the retained events' },
  payload_too_large: { status: 413, code: 1413, title: 'Request body too large' },
  unsupported_media_type: { status: 415, code: 1415, title: 'Unsupported media type' },
  validation_failed: { status: 422, code: 1800, title: 'Validation failed' },
  idempotency_key_reused: {
    status: 422,
    code: 1801,
    title: 'Idempotency-Key reused with a different request',
  },
  rate_limited: { status: 429, code: 1429, title: 'Too many requests' },
  // Absences (issue 31): 4001-4099.
  absence_overlaps: {
    status: 409,
    code: 4001,
    title: 'Overlaps a requested or approved absence of the employee',
  },
  insufficient_balance: { status: 409, code: 4002, title: 'Not enough leave balance' },
  invalid_credentials: { status: 401, code: 3401, title: 'Email or password is wrong' },
  session_required: { status: 401, code: 3402, title: 'Sign in to the console' },
  csrf_failed: { status: 403, code: 3403, title: 'Missing or wrong CSRF token or Origin' },
  invitation_invalid: { status: 410, code: 3410, title: 'Invitation is unknown, used or expired' },
  // Single sign-on (issue 34): 3420–3449.
  sso_not_configured: {
    status: 404,
    code: 3420,
    title: 'No company signs in with its identity provider for this email domain',
  },
  sso_required: {
    status: 403,
    code: 3421,
    title: "This company's people sign in with its identity provider",
  },
  sso_state_invalid: {
    status: 400,
    code: 3422,
    title: 'Sign-in attempt unknown, used, expired or started in another browser',
  },
  sso_provider_unavailable: { status: 502, code: 3423, title: 'The identity provider could not be reached' },
  sso_response_invalid: {
    status: 401,
    code: 3424,
    title: "The identity provider's answer failed verification",
  },
  sso_denied: { status: 401, code: 3425, title: 'The identity provider did not sign the person in' },
  sso_email_unverified: {
    status: 403,
    code: 3426,
    title: 'The identity provider has not verified the email address',
  },
  sso_email_domain_not_allowed: {
    status: 403,
    code: 3427,
    title: "The email address is outside the company's single sign-on domains",
  },
  sso_person_unknown: { status: 403, code: 3428, title: 'No person of the company has this email address' },
  sso_person_deactivated: { status: 403, code: 3429, title: 'The person has been deactivated' },
  sso_identity_conflict: {
    status: 409,
    code: 3430,
    title: 'The person is already linked to another account of this identity provider',
  },
  sso_domain_taken: {
    status: 409,
    code: 3431,
    title: "An email domain already belongs to another company's single sign-on",
  },
  sso_configuration_unreadable: {
    status: 503,
    code: 3432,
    title: 'The single sign-on client secret cannot be decrypted (encryption key changed?)',
  },
  sso_domain_in_use: {
    status: 409,
    code: 3433,
    title: 'An email domain is used by people of another company, or by a super admin',
  },
  sso_link_required: {
    status: 403,
    code: 3434,
    title: 'This person links their account to the identity provider from a signed-in session',
  },
  sso_link_mismatch: {
    status: 409,
    code: 3435,
    title: "The identity provider's account is not this person's (another or unverified email)",
  },
  sso_domain_unproven: {
    status: 422,
    code: 3436,
    title: 'No active person of the company has an email address at this domain yet',
  },
  // Planned shifts (issue 33): 5001-5099.
  shift_overlaps: { status: 409, code: 5001, title: "Overlaps another of the employee's planned shifts" },
  // Kiosk devices (issue 35): 6001-6049.
  invalid_enrolment_code: {
    status: 401,
    code: 6001,
    title: 'The enrolment code is wrong, used or expired',
  },
  invalid_pin: { status: 401, code: 6002, title: 'The PIN is wrong' },
  pin_locked: {
    status: 429,
    code: 6003,
    title: 'Too many wrong PINs: this PIN (or this device) is locked for a while',
  },
  badge_locked: {
    status: 429,
    code: 6004,
    title: 'Too many unknown badges at this device: its badges are refused for a while',
  },
  kiosk_badge_only: {
    status: 403,
    code: 6005,
    title: "This workplace's kiosk identifies by badge only: no PINs",
  },
  // Self-service (issue 35): 6050-6099.
  not_an_employee: {
    status: 403,
    code: 6050,
    title: 'This person is not linked to an employee: self-service is for employees',
  },
  web_clock_disabled: { status: 403, code: 6051, title: 'The web clock is switched off for this company' },
  address_not_allowed: {
    status: 403,
    code: 6052,
    title: "The web clock is not allowed from this address at the employee's workplace",
  },
  correction_request_open: {
    status: 409,
    code: 6053,
    title: 'A correction request for this entry (or this missing day) is already waiting for a decision',
  },
  employee_not_active: {
    status: 403,
    code: 6054,
    title: 'The employee is not active: self-service shows their data but takes no punches or requests',
  },
  internal_error: { status: 500, code: 1500, title: 'Internal server error' },
  service_unavailable: { status: 503, code: 1503, title: 'Service unavailable' },
  storage_full: { status: 503, code: 1504, title: 'No space left to write; reads still work' },
} as const satisfies Record<string, { status: number; code: number; title: string }>;

export type ErrorName = keyof typeof ERROR_CATALOGUE;

export interface FieldError {
  field: string;
  message: string;
  code: string | null;
}

/** An expected failure of an operation, carried to the problem-details handler. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly errorName: ErrorName,
    readonly detail: string | null = null,
    readonly fieldErrors: FieldError[] | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? ERROR_CATALOGUE[errorName].title);
    this.status = ERROR_CATALOGUE[errorName].status;
  }
}

export function validationError(errors: FieldError[], detail?: string): ApiError {
  return new ApiError(
    'validation_failed',
    detail ?? errors.map((e) => `${e.field}: ${e.message}`).join('; '),
    errors,
  );
}

export function problemType(problemBase: string, name: ErrorName): string {
  return `${problemBase}/${name.replaceAll('_', '-')}`;
}
