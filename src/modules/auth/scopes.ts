/** Spec, Authentication: scopes and the permission numbers that grant them. */
export const SCOPES = [
  {
    id: 'attendance.record',
    permission: 86,
    label: 'Record clock events and completed shifts; set employee external ids',
    kind: 'machine',
  },
  { id: 'attendance.read', permission: 47, label: 'Read time entries', kind: 'human' },
  { id: 'attendance.reports', permission: 49, label: 'Read time reports', kind: 'human' },
  { id: 'employees.read', permission: 52, label: 'Read employees', kind: 'human' },
  { id: 'leave.read', permission: 72, label: 'Read leave balances and requests', kind: 'human' },
  // Planned shifts (issue 33).
  { id: 'shifts.manage', permission: 97, label: 'Write, delete and publish planned shifts', kind: 'human' },
  {
    id: 'webhooks.manage',
    permission: 94,
    label: "Manage the company's webhook endpoints (their deliveries carry only events the key can read)",
    kind: 'machine',
  },
] as const;

export type ScopeId = (typeof SCOPES)[number]['id'];
export const SCOPE_IDS: readonly ScopeId[] = SCOPES.map((s) => s.id);
/** Operations-contract permission: may manage API keys. */
export const PERMISSION_MANAGE_KEYS = 90;
/** Console permissions (README): approve/reject entries and confirm days; manage employees; manage company settings and webhooks. */
export const PERMISSION_DECIDE_ENTRIES = 91;
export const PERMISSION_MANAGE_EMPLOYEES = 92;
export const PERMISSION_MANAGE_COMPANY = 93;
export const KNOWN_PERMISSIONS: readonly number[] = [
  ...SCOPES.map((s) => s.permission),
  PERMISSION_MANAGE_KEYS,
  PERMISSION_DECIDE_ENTRIES,
  PERMISSION_MANAGE_EMPLOYEES,
  PERMISSION_MANAGE_COMPANY,
];
/** Scopes a person's own session token may use: the read operations only (spec, Authentication rule 1). */
const PERSON_READ_SCOPES: readonly ScopeId[] = ['attendance.read', 'employees.read', 'attendance.reports'];

export function isScopeId(value: string): value is ScopeId {
  return (SCOPE_IDS as readonly string[]).includes(value);
}

export function scopeInfo(id: ScopeId) {
  const scope = SCOPES.find((s) => s.id === id);
  if (!scope) throw new Error(`unknown scope ${id}`);
  return scope;
}

/** The permissions a person needs for the read scopes' operations in the admin API. */
export const PERMISSION_READ_ENTRIES = scopeInfo('attendance.read').permission;
export const PERMISSION_READ_EMPLOYEES = scopeInfo('employees.read').permission;
export const PERMISSION_REPORTS = scopeInfo('attendance.reports').permission;
/** The Roster screen's changes (issue 33). */
export const PERMISSION_SHIFTS = scopeInfo('shifts.manage').permission;

export interface Grantor {
  permissions: readonly number[];
  superAdmin: boolean;
}

/** Spec, Authentication rule 5: machine scopes always; human scopes need the matching permission or super admin. */
export function mayGrantScope(grantor: Grantor, scope: ScopeId): boolean {
  const info = scopeInfo(scope);
  if (info.kind === 'machine') return true;
  return grantor.superAdmin || grantor.permissions.includes(info.permission);
}

export function mayManageKeys(grantor: Grantor): boolean {
  return grantor.superAdmin || grantor.permissions.includes(PERMISSION_MANAGE_KEYS);
}

export function personScopes(person: Grantor): ScopeId[] {
  return PERSON_READ_SCOPES.filter(
    (s) => person.superAdmin || person.permissions.includes(scopeInfo(s).permission),
  );
}
