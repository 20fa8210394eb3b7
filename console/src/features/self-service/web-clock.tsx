import { useCallback, useEffect, useState } from 'preact/hooks';
import { messageOf } from '../../api.js';
import { Notice } from '../../components/ui.js';
import { formatInstant } from '../../format.js';
import { nextPunches, type Punch, PUNCH_LABELS, punchResult, type SelfToday, stateText } from './model.js';
import { dismiss, onOutboxChange, refusedPunchesOf, stateAfter, takePunch, waitingOf } from './outbox.js';
import type { QueuedPunch, RefusedPunch } from './outbox-store.js';

/** The person's waiting and refused punches, kept current. */
export function useOutbox(personId: string) {
  const [waiting, setWaiting] = useState<QueuedPunch[]>([]);
  const [refused, setRefused] = useState<RefusedPunch[]>([]);
  const [online, setOnline] = useState(navigator.onLine);
  const load = useCallback(() => {
    waitingOf(personId)
      .then(setWaiting)
      .catch(() => setWaiting([]));
    refusedPunchesOf(personId)
      .then(setRefused)
      .catch(() => setRefused([]));
    setOnline(navigator.onLine);
  }, [personId]);
  useEffect(() => {
    load();
    const stop = onOutboxChange(() => load());
    window.addEventListener('online', load);
    window.addEventListener('offline', load);
    return () => {
      stop();
      window.removeEventListener('online', load);
      window.removeEventListener('offline', load);
    };
  }, [load]);
  return { waiting, refused, online };
}

function RefusedList(props: { refused: RefusedPunch[]; zone: string }) {
  if (props.refused.length === 0) return null;
  return (
    <div class="refused-punches">
      <h3 id="refused-heading">Not recorded</h3>
      <ul aria-labelledby="refused-heading">
        {props.refused.map((p) => (
          <li key={p.idempotencyKey}>
            <span>
              {PUNCH_LABELS[p.type]} at {formatInstant(p.occurredAt, props.zone)}: {p.reason}
            </span>{' '}
            <button type="button" onClick={() => void dismiss(p.idempotencyKey)}>
              Seen
            </button>
          </li>
        ))}
      </ul>
      <p class="hint">Ask your manager to correct the day if a punch is missing.</p>
    </div>
  );
}

/**
 * The web clock: punches go to the browser's queue first and are sent at once when online; offline
 * they wait ("waiting to send (N)") and leave on the `online` event or the timer (outbox.ts).
 */
export function WebClock(props: {
  personId: string;
  self: SelfToday;
  zone: string;
  offline?: boolean;
  reload: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { waiting, refused, online } = useOutbox(props.personId);
  // Waiting punches sent (or refused) since: "saved on this device" no longer holds.
  useEffect(() => onOutboxChange((sent) => sent && setResult(null)), []);
  const { webClock } = props.self;
  const state = stateAfter(props.self.state, waiting);
  async function punch(type: Punch) {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const outcome = await takePunch(props.personId, type);
      if (outcome.kind === 'stored') setResult(punchResult(outcome.answer.type, outcome.answer.time));
      else if (outcome.kind === 'refused') setError(outcome.reason);
      else setResult(`${PUNCH_LABELS[type]}: saved on this device, waiting to send (${outcome.count}).`);
      props.reload();
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }
  // Offline, the address is checked when the punch is sent: the buttons stay.
  const allowed = webClock.allowedHere || props.offline === true || !online;
  return (
    <section class="card web-clock" aria-labelledby="clock-heading">
      <h2 id="clock-heading">Web clock</h2>
      {!webClock.enabled ? (
        <p>The web clock is switched off for your company. Clock in at work, or ask an administrator.</p>
      ) : !allowed ? (
        <p>The web clock of your workplace works only from the workplace's network.</p>
      ) : (
        <div class="clock-buttons">
          {nextPunches(state).map((type) => (
            <button
              key={type}
              type="button"
              class={type === 'clock_in' || type === 'break_end' ? 'primary big' : 'big'}
              disabled={busy}
              onClick={() => void punch(type)}
            >
              {PUNCH_LABELS[type]}
            </button>
          ))}
        </div>
      )}
      <p class="clock-queue" id="web-clock-queue" role="status">
        {waiting.length > 0 ? `waiting to send (${waiting.length})` : ''}
      </p>
      {waiting.length > 0 ? (
        <p class="clock-after">
          With the punches waiting, {stateText({ state }, props.zone).replace(/^You/, 'you')}
        </p>
      ) : null}
      {!online ? (
        <p class="hint">Offline: punches are kept on this device and sent when the network returns.</p>
      ) : null}
      <Notice tone="success" message={result} />
      <Notice tone="error" message={error} />
      <RefusedList refused={refused} zone={props.zone} />
    </section>
  );
}
