import { useState } from 'preact/hooks';
import { api, ApiProblem, companyZone, messageOf, type Person } from '../../api.js';
import { Loading, Notice, ScreenHeading } from '../../components/ui.js';
import { formatDay, formatHours, formatInstant } from '../../format.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import { nextPunches, type Punch, PUNCH_LABELS, punchResult, type SelfToday } from './model.js';
import { useSelf } from './use-self.js';

/** Whether the person is an employee: self-service screens are theirs. */
export const isEmployee = (person: Person) => person.employeeId !== null;

function stateText(self: SelfToday, zone: string): string {
  const { state } = self;
  if (!state.clockedIn) return 'You are not clocked in.';
  const since = formatInstant(state.since, zone);
  return state.onBreak
    ? `You are on a break (clocked in since ${since}).`
    : `You are clocked in since ${since}.`;
}

/**
 * Sends one punch with its own Idempotency-Key; a network failure is tried once more with the same
 * key, so a punch that reached the server is never recorded twice.
 */
async function sendPunch(type: Punch): Promise<{ type: string; time: string }> {
  const key = crypto.randomUUID();
  const send = () =>
    api<{ type: string; time: string }>('POST', '/self/clock', { type }, { 'idempotency-key': key });
  try {
    return await send();
  } catch (error) {
    if (error instanceof ApiProblem && error.status === 0) return send();
    throw error;
  }
}

function WebClock(props: { self: SelfToday; reload: () => void }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { webClock } = props.self;
  async function punch(type: Punch) {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const answer = await sendPunch(type);
      setResult(punchResult(answer.type, answer.time));
      props.reload();
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section class="card web-clock" aria-labelledby="clock-heading">
      <h2 id="clock-heading">Web clock</h2>
      {!webClock.enabled ? (
        <p>The web clock is switched off for your company. Clock in at work, or ask an administrator.</p>
      ) : !webClock.allowedHere ? (
        <p>The web clock of your workplace works only from the workplace's network.</p>
      ) : (
        <div class="clock-buttons">
          {nextPunches(props.self.state).map((type) => (
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
      <Notice tone="success" message={result} />
      <Notice tone="error" message={error} />
    </section>
  );
}

/** `#/me`: today for the person's own employee, and the web clock. */
function DayScreen({ person }: ScreenProps) {
  const { data: self, error, reload } = useSelf();
  const zone = self?.timeZone ?? companyZone(person);
  return (
    <>
      <ScreenHeading title="My day">
        <p class="lede">Your time today, and the clock.</p>
      </ScreenHeading>
      <Notice tone="error" message={error} />
      {self === null && !error ? <Loading what="your day" /> : null}
      {self ? (
        <>
          <section class="card" aria-labelledby="today-heading">
            <h2 id="today-heading">{formatDay(self.today)}</h2>
            <p class="today-state" role="status">
              {stateText(self, zone)}
            </p>
            <p>
              Worked today: <strong>{formatHours(self.todayHours)}</strong>
            </p>
            <p class="zone-note">Times in {zone}.</p>
          </section>
          <WebClock self={self} reload={reload} />
        </>
      ) : null}
    </>
  );
}

export const dayScreen: Screen = {
  path: 'me',
  title: 'My day',
  allowed: isEmployee,
  component: DayScreen,
};
