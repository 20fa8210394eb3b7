import { useEffect } from 'preact/hooks';
import { ScreenHeading } from '../../components/ui.js';
import { formatDay, formatHours } from '../../format.js';
import { stateText } from './model.js';
import type { Snapshot } from './outbox.js';
import { WebClock } from './web-clock.js';

const RETRY_EVERY_MS = 10_000;

/**
 * The console opened without network (the service worker's app shell): the person's web clock from
 * what My day last showed, its punches queued on this device. The session is checked again on the
 * `online` event and every 10 seconds; then the console opens as usual and the queue is sent.
 */
export function OfflineDay(props: { snapshot: Snapshot; retry: () => void }) {
  const { snapshot, retry } = props;
  useEffect(() => {
    window.addEventListener('online', retry);
    const timer = setInterval(retry, RETRY_EVERY_MS);
    return () => {
      window.removeEventListener('online', retry);
      clearInterval(timer);
    };
  }, [retry]);
  return (
    <div class="app">
      <header class="topbar">
        <div class="brand">
          <span class="brand-name">Punchclock</span>
          <span class="brand-company">{snapshot.companyName}</span>
        </div>
        <div class="account">
          <span class="account-email" title="Signed in as">
            {snapshot.email}
          </span>
        </div>
      </header>
      <main id="main" tabIndex={-1} class="offline-main">
        <ScreenHeading title="My day">
          <p class="lede">
            Offline: the server cannot be reached. Your punches are kept on this device and sent when the
            network returns.
          </p>
        </ScreenHeading>
        <section class="card" aria-labelledby="today-heading">
          <h2 id="today-heading">{formatDay(snapshot.self.today)}</h2>
          <p class="today-state">Last known: {stateText(snapshot.self, snapshot.zone)}</p>
          <p>
            Worked today (last known): <strong>{formatHours(snapshot.self.todayHours)}</strong>
          </p>
        </section>
        <WebClock
          personId={snapshot.personId}
          self={snapshot.self}
          zone={snapshot.zone}
          offline
          reload={() => undefined}
        />
      </main>
    </div>
  );
}
