export interface AuditEntry {
  id: string;
  at: string;
  actor: { type: 'user' | 'api_key' | 'cli' | 'system'; id: string | null; name: string | null };
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown> | null;
}

export interface AuditPage {
  items: AuditEntry[];
  nextCursor: string | null;
  actions: string[];
}

export const ACTOR_TYPES: [string, string][] = [
  ['', 'Anyone'],
  ['user', 'People (console)'],
  ['api_key', 'API keys'],
  ['cli', 'Command line'],
  ['system', 'Automatic (clock-out)'],
];

export function actorText(actor: AuditEntry['actor']): string {
  if (actor.type === 'cli') return 'Command line';
  if (actor.type === 'system') return 'Automatic clock-out';
  const kind = actor.type === 'user' ? 'person' : 'API key';
  return `${actor.name ?? actor.id ?? 'unknown'} (${kind})`;
}

export function detailsText(details: Record<string, unknown> | null): string {
  if (!details) return '';
  return Object.entries(details)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('; ');
}

export const FILTERS = ['actorType', 'actorId', 'action', 'from', 'to'] as const;
export type Filters = Record<(typeof FILTERS)[number], string>;
