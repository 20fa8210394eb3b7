import { useEffect } from 'preact/hooks';
import { companyZone, type Person } from '../../api.js';
import { Loading, Notice, ScreenHeading } from '../../components/ui.js';
import { formatDay, formatHours } from '../../format.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import { stateText } from './model.js';
import { onOutboxChange, saveSnapshot } from './outbox.js';
import { PinForm } from '../devices/pin-form.js';
import { useSelf } from './use-self.js';
import { WebClock } from './web-clock.js';

/** Whether the person is an employee: self-service screens are theirs. */
export const isEmployee = (person: Person) => person.employeeId !== null;

/** `#/me`: today for the person's own employee, and the web clock. */
function DayScreen({ person }: ScreenProps) {
  const { data: self, error, reload } = useSelf();
  const zone = self?.timeZone ?? companyZone(person);
  // Punches of the queue sent (the network back): today's state again.
  useEffect(() => onOutboxChange((sent) => sent && reload()), [reload]);
  useEffect(() => {
    // Kept for a reload without network (the app shell opens this clock from it).
    if (self)
      saveSnapshot({
        personId: person.id,
        email: person.email,
        companyName: person.company.name,
        zone,
        self,
        expiresAt: person.sessionExpiresAt,
      });
  }, [self, person, zone]);
  return (
    <>
      <ScreenHeading title="My day">
        <p class="lede">Your time today, and the clock.</p>
      </ScreenHeading>
      {/* Offline with the day shown: the clock says so; no alarm about the reload that failed. */}
      <Notice tone="error" message={self && !navigator.onLine ? null : error} />
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
          <WebClock personId={person.id} self={self} zone={zone} reload={reload} />
          <PinForm
            path="/self/pin"
            title="Kiosk PIN"
            idPrefix="self"
            doneText="Your PIN is set. At the kiosk, choose your name and type it."
            hint="4 to 8 digits, for the kiosk at work (choose your name, then the PIN). It replaces any earlier PIN."
          />
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
