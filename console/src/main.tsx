import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf, type Person, setCsrfToken, whenSessionEnds } from './api.js';
import { Notice, ScreenHeading } from './components/ui.js';
import { InvitePage } from './features/people/invite.js';
import { SignInPage } from './features/people/sign-in.js';
import { OfflineDay } from './features/self-service/offline-day.js';
import {
  forgetSnapshot,
  keepSnapshotOnlyFor,
  loadSnapshot,
  type Snapshot,
  setOutboxOwner,
  startOutbox,
} from './features/self-service/outbox.js';
import { navigate, type Route, useRoute } from './router.js';
import { SCREENS } from './screens/index.js';

type SessionState =
  | { state: 'loading' }
  | { state: 'offline'; snapshot: Snapshot }
  | { state: 'signed-out'; notice: string | null }
  | { state: 'signed-in'; person: Person };

/** No network at start: the person's web clock from what My day last showed (punches wait in the queue). */
function offlineSession(error: unknown): SessionState | null {
  const snapshot = loadSnapshot();
  return error instanceof ApiProblem && error.status === 0 && snapshot
    ? { state: 'offline', snapshot }
    : null;
}

/** Signs out on the server; what My day kept goes first, so that it goes even offline. */
async function endSession(): Promise<void> {
  forgetSnapshot();
  try {
    await api('DELETE', '/session');
  } catch (error) {
    // Already gone on the server: the person is signed out either way.
    if (!(error instanceof ApiProblem && error.status === 401)) throw error;
  }
}

function App() {
  const route = useRoute();
  const [session, setSession] = useState<SessionState>({ state: 'loading' });

  const signedIn = useCallback((person: Person) => {
    keepSnapshotOnlyFor(person.id);
    setCsrfToken(person.csrfToken);
    setSession({ state: 'signed-in', person });
    setOutboxOwner(person.id);
  }, []);
  const signedOut = useCallback((notice: string | null) => {
    // Every signed-out path (sign-out, session ended, 401 at start): no offline day of anyone.
    forgetSnapshot();
    setCsrfToken(null);
    setOutboxOwner(null);
    setSession({ state: 'signed-out', notice });
  }, []);

  const boot = useCallback(
    () =>
      api<Person>('GET', '/session')
        .then(signedIn)
        .catch((error: unknown) => {
          const offline = offlineSession(error);
          if (offline) return setSession(offline);
          signedOut(
            error instanceof ApiProblem && error.status === 401
              ? null
              : `The console could not reach the server: ${messageOf(error)}`,
          );
        }),
    [signedIn, signedOut],
  );

  useEffect(() => {
    whenSessionEnds(() => signedOut('Your session has ended. Sign in again to continue.'));
    startOutbox();
    void boot();
  }, [boot, signedOut]);

  const [first] = route.segments;
  if (first === 'invite')
    return (
      <InvitePage
        token={route.segments[1] ?? ''}
        onSignedIn={(person) => {
          signedIn(person);
          navigate('#/', { replace: true });
        }}
      />
    );
  if (session.state === 'loading')
    return (
      <p class="boot" role="status">
        Loading the console…
      </p>
    );
  if (session.state === 'offline')
    return <OfflineDay snapshot={session.snapshot} retry={() => void boot()} />;
  if (session.state === 'signed-out')
    return (
      <SignInPage
        notice={session.notice}
        onSignedIn={(person) => {
          signedIn(person);
          if (first === undefined || first === 'sign-in') navigate('#/', { replace: true });
        }}
      />
    );
  return (
    <Shell
      person={session.person}
      route={route}
      refreshSession={async () => signedIn(await api<Person>('GET', '/session'))}
      onSignOut={async () => {
        await endSession();
        signedOut('You have signed out.');
        navigate('#/sign-in', { replace: true });
      }}
    />
  );
}

/** What the main region shows: the screen, "not for you", a welcome with nothing to open, or "not found". */
function ShellContent(props: { person: Person; route: Route; refreshSession: () => Promise<void> }) {
  const { person, route } = props;
  const [first] = route.segments;
  const screen = SCREENS.find((s) => s.path === first);
  if (screen && screen.allowed(person)) {
    const Component = screen.component;
    return <Component person={person} route={route} refreshSession={props.refreshSession} />;
  }
  if (screen)
    return (
      <>
        <ScreenHeading title={screen.title} />
        <p>Your permissions do not include this screen. Ask an administrator if you need it.</p>
      </>
    );
  if (first === undefined || first === 'sign-in')
    return SCREENS.some((s) => s.allowed(person)) ? null : (
      <>
        <ScreenHeading title="Welcome" />
        <p>Your permissions do not include any screen of the console yet. Ask an administrator.</p>
      </>
    );
  return (
    <>
      <ScreenHeading title="Page not found" />
      <p>There is no page at this address. Choose a screen from the navigation.</p>
    </>
  );
}

/** The banner: the product, the company, who is signed in, and signing out. */
function TopBar(props: { person: Person; onSignOut: () => void }) {
  return (
    <header class="topbar">
      <div class="brand">
        <span class="brand-name">Punchclock</span>
        <span class="brand-company">{props.person.company.name}</span>
      </div>
      <div class="account">
        <span class="account-email" title="Signed in as">
          {props.person.email}
        </span>
        <button type="button" onClick={props.onSignOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}

function Shell(props: {
  person: Person;
  route: Route;
  refreshSession: () => Promise<void>;
  onSignOut: () => Promise<void>;
}) {
  const { person, route } = props;
  const allowed = SCREENS.filter((screen) => screen.allowed(person));
  const [first] = route.segments;
  const [signOutError, setSignOutError] = useState<string | null>(null);

  useEffect(() => {
    // "#/" or the sign-in page after signing in: open the first screen this person may use.
    if ((first === undefined || first === 'sign-in') && allowed[0])
      navigate(`#/${allowed[0].path}`, { replace: true });
  }, [first, allowed]);

  return (
    <div class="app">
      <a
        class="skip-link"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <TopBar
        person={person}
        onSignOut={() => {
          setSignOutError(null);
          props.onSignOut().catch((error: unknown) => setSignOutError(messageOf(error)));
        }}
      />
      <div class="shell">
        <nav class="nav" aria-label="Main">
          <ul>
            {allowed.map((s) => (
              <li key={s.path}>
                <a href={`#/${s.path}`} aria-current={s.path === first ? 'page' : undefined}>
                  {s.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          <Notice tone="error" message={signOutError} />
          <ShellContent person={person} route={route} refreshSession={props.refreshSession} />
        </main>
      </div>
    </div>
  );
}

// An installable web app: the service worker keeps the app shell for a reload without network.
if ('serviceWorker' in navigator)
  navigator.serviceWorker.register('/console/sw.js', { scope: '/console/' }).catch(() => undefined);

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
