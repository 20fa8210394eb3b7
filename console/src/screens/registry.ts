import type { FunctionComponent } from 'preact';
import type { Person } from '../api.js';
import type { Route } from '../router.js';

export interface ScreenProps {
  person: Person;
  route: Route;
  /** Reads the session again (after a change to the person's company, e.g. its time zone). */
  refreshSession: () => Promise<void>;
}

/**
 * One screen of the console: where it lives (`#/<path>`), its name in the navigation and its
 * heading, who may see it, and what it renders. The navigation, the routing and the "not for you"
 * page all come from the list in screens/index.ts, so a new screen is its feature's `screen.tsx`
 * (console/src/features/<feature>/) and one line there.
 * Hiding a screen is a courtesy: the server checks every call again.
 */
export interface Screen {
  path: string;
  title: string;
  allowed(person: Person): boolean;
  component: FunctionComponent<ScreenProps>;
}
