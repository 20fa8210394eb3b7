import { DataTable } from '../../components/table.js';
import { formatInstant } from '../../format.js';
import { hrefOf } from '../../router.js';
import { actorText, type AuditEntry, detailsText } from './model.js';

/** The entries, newest first; a person or key links to only their entries. */
export function AuditTable(props: { entries: AuditEntry[]; zone: string; onActor: (name: string) => void }) {
  return (
    <DataTable caption="Audit log, newest first" columns={['When', 'Who', 'Action', 'What']}>
      {props.entries.map((entry) => (
        <tr key={entry.id}>
          <th scope="row" data-label="When" class="nowrap">
            {formatInstant(entry.at, props.zone)}
          </th>
          <td data-label="Who">
            <Actor actor={entry.actor} onActor={props.onActor} />
          </td>
          <td data-label="Action">
            <code>{entry.action}</code>
          </td>
          <td data-label="What">
            {entry.targetType ? (
              <span>
                {entry.targetType} <code class="sub">{entry.targetId}</code>
              </span>
            ) : null}
            {entry.details ? <p class="details">{detailsText(entry.details)}</p> : null}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function Actor(props: { actor: AuditEntry['actor']; onActor: (name: string) => void }) {
  const { actor } = props;
  const text = actorText(actor);
  if (!actor.id) return <>{text}</>;
  return (
    <a
      href={hrefOf(['audit-log'], { actorType: actor.type, actorId: actor.id })}
      onClick={() => props.onActor(text)}
      aria-label={`Only the entries of ${text}`}
    >
      {text}
    </a>
  );
}
