export interface ApiKey {
  id: string;
  name: string;
  clientId: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  allowedIps: string[];
  previousSecretValidUntil: string | null;
}

export type KeyWithSecret = ApiKey & { clientSecret: string };

/**
 * The specification's scopes (Authentication): machine scopes may always be granted; a human scope
 * needs its permission (or a super admin). The server applies the same rule; this only explains it.
 */
export const SCOPES = [
  {
    id: 'attendance.record',
    permission: 86,
    label: 'Record clock events and completed shifts',
    machine: true,
  },
  { id: 'attendance.read', permission: 47, label: 'Read time entries', machine: false },
  { id: 'attendance.reports', permission: 49, label: 'Read time reports', machine: false },
  { id: 'employees.read', permission: 52, label: 'Read employees', machine: false },
  { id: 'leave.read', permission: 72, label: 'Read leave balances and requests', machine: false },
  { id: 'shifts.manage', permission: 97, label: 'Write, delete and publish planned shifts', machine: false },
  {
    id: 'webhooks.manage',
    permission: 94,
    label: "Manage the company's webhook endpoints (deliveries carry only events the key can read)",
    machine: true,
  },
] as const;

export const GRACE_PERIODS = [
  { seconds: 0, label: 'None: the old secret stops working now' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours' },
  { seconds: 7 * 86_400, label: '7 days' },
];

export function keyStatus(key: ApiKey, now: number): 'active' | 'revoked' | 'expired' {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
}
