import { render } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf, type Person, setCsrfToken, whenSessionEnds } from './api.js';
import { Notice, ScreenHeading } from './components/ui.js';
import { InvitePage, SignInPage } from './pages/sign-in.js';
import { navigate, type Route, useRoute } from './router.js';
import { SCREENS } from './screens/index.js';

type SessionState =
  | { state: 'loading' }
  | { state: 'signed-out'; notice: string | null }
  | { state: 'signed-in'; person: Person };

function App() {
  const route = useRoute();
  const [session, setSession] = useState<SessionState>({ state: 'loading' });

  const signedIn = useCallback((person: Person) => {
    setCsrfToken(person.csrfToken);
    setSession({ state: 'signed-in', person });
  }, []);
  const signedOut = useCallback((notice: string | null) => {
    setCsrfToken(null);
    setSession({ state: 'signed-out', notice });
  }, []);

  useEffect(() => {
    whenSessionEnds(() => signedOut('Your session has ended. Sign in again to continue.'));
    api<Person>('GET', '/session')
      .then(signedIn)
      .catch((error: unknown) =>
        signedOut(
          error instanceof ApiProblem && error.status === 401
            ? null
            : `The console could not reach the server: ${messageOf(error)}`,
        ),
      );
  }, [signedIn, signedOut]);

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
        try {
          await api('DELETE', '/session');
        } catch (error) {
          // Already gone on the server: the person is signed out either way.
          if (!(error instanceof ApiProblem && error.status === 401)) throw error;
        }
        signedOut('You have signed out.');
        navigate('#/sign-in', { replace: true });
      }}
    />
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
  const screen = SCREENS.find((s) => s.path === first);
  const [signOutError, setSignOutError] = useState<string | null>(null);

  useEffect(() => {
    // "#/" or the sign-in page after signing in: open the first screen this person may use.
    if ((first === undefined || first === 'sign-in') && allowed[0])
      navigate(`#/${allowed[0].path}`, { replace: true });
  }, [first, allowed]);

  let content;
  if (screen && screen.allowed(person)) {
    const Component = screen.component;
    content = <Component person={person} route={route} refreshSession={props.refreshSession} />;
  } else if (screen) {
    content = (
      <>
        <ScreenHeading title={screen.title} />
        <p>Your permissions do not include this screen. Ask an administrator if you need it.</p>
      </>
    );
  } else if (first === undefined || first === 'sign-in') {
    content =
      allowed.length === 0 ? (
        <>
          <ScreenHeading title="Welcome" />
          <p>Your permissions do not include any screen of the console yet. Ask an administrator.</p>
        </>
      ) : null;
  } else {
    content = (
      <>
        <ScreenHeading title="Page not found" />
        <p>There is no page at this address. Choose a screen from the navigation.</p>
      </>
    );
  }

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
      <header class="topbar">
        <div class="brand">
          <span class="brand-name">Punchclock</span>
          <span class="brand-company">{person.company.name}</span>
        </div>
        <div class="account">
          <span class="account-email" title="Signed in as">
            {person.email}
          </span>
          <button
            type="button"
            onClick={() => {
              setSignOutError(null);
              props.onSignOut().catch((error: unknown) => setSignOutError(messageOf(error)));
            }}
          >
            Sign out
          </button>
        </div>
      </header>
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
          {content}
        </main>
      </div>
    </div>
  );
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
