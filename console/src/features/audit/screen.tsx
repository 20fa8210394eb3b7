import { useState } from 'preact/hooks';
import { companyZone, may, PERMISSIONS } from '../../api.js';
import { Loading, Notice, ScreenHeading, ZoneNote } from '../../components/ui.js';
import { hrefOf, navigate } from '../../router.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import { AuditFilters } from './audit-filters.js';
import { AuditTable } from './audit-table.js';
import { FILTERS, type Filters } from './model.js';
import { useAuditLog } from './use-audit-log.js';

/** `#/audit-log?actorType=…&actorId=…&action=…&from=…&to=…`: who changed what, newest first. */
function AuditLogScreen({ person, route }: ScreenProps) {
  const filters = Object.fromEntries(FILTERS.map((key) => [key, route.query.get(key) ?? ''])) as Filters;
  const { entries, actions, nextCursor, error, load } = useAuditLog(filters);
  const [actorName, setActorName] = useState<string | null>(null);
  const change = (name: keyof Filters, value: string) => {
    const next: Record<string, string | undefined> = { ...filters, [name]: value || undefined };
    if (name === 'actorType') next.actorId = undefined;
    navigate(hrefOf(['audit-log'], next), { replace: true });
  };
  const filtered = FILTERS.some((name) => filters[name]);

  return (
    <>
      <ScreenHeading title="Audit log">
        <p class="lede">Who changed what in {person.company.name}, and when: newest first.</p>
      </ScreenHeading>
      <ZoneNote timeZone={person.company.timeZone} />
      <AuditFilters
        filters={filters}
        actions={actions}
        actorName={actorName}
        change={change}
        filtered={filtered}
      />
      <Notice tone="error" message={error} />
      {entries === null && !error ? <Loading what="the audit log" /> : null}
      {entries ? (
        <section aria-labelledby="audit-list-heading">
          <h2 id="audit-list-heading">
            {filtered ? 'Matching entries' : 'All entries'}{' '}
            <span class="count">
              ({entries.length}
              {nextCursor ? '+' : ''})
            </span>
          </h2>
          {entries.length === 0 ? (
            <p>No entry matches.</p>
          ) : (
            <AuditTable entries={entries} zone={companyZone(person)} onActor={setActorName} />
          )}
          {nextCursor ? (
            <button type="button" onClick={() => void load(nextCursor)}>
              Show older entries
            </button>
          ) : null}
        </section>
      ) : null}
    </>
  );
}

export const auditLogScreen: Screen = {
  path: 'audit-log',
  title: 'Audit log',
  allowed: (person) => may(person, PERMISSIONS.manageCompany),
  component: AuditLogScreen,
};
