import { formatInstant } from '../../format.js';
import { hrefOf } from '../../router.js';
import { actorText, type AuditEntry, detailsText } from './model.js';

/** The entries, newest first; a person or key links to only their entries. */
export function AuditTable(props: { entries: AuditEntry[]; zone: string; onActor: (name: string) => void }) {
  return (
    <div class="table-wrap">
      <table class="data-table">
        <caption class="visually-hidden">Audit log, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">What</th>
          </tr>
        </thead>
        <tbody>
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
        </tbody>
      </table>
    </div>
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
