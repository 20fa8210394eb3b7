import { apiKeysScreen } from './api-keys.js';
import { companyScreen } from './company.js';
import type { Screen } from './registry.js';
import { timeEntriesScreen } from './time-entries.js';

/** Every screen, in navigation order. Issue 23's screens (Now, Employees, Audit log, …) join here. */
export const SCREENS: readonly Screen[] = [timeEntriesScreen, apiKeysScreen, companyScreen];
