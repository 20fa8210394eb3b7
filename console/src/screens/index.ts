import { apiKeysScreen } from './api-keys.js';
import { auditLogScreen } from './audit-log.js';
import { companyScreen } from './company.js';
import { employeesScreen } from './employees.js';
import { nowScreen } from './now.js';
import type { Screen } from './registry.js';
import { timeEntriesScreen } from './time-entries.js';
import { timesheetsScreen } from './timesheets.js';
import { webhooksScreen } from './webhooks.js';

/** Every screen, in navigation order. */
export const SCREENS: readonly Screen[] = [
  timeEntriesScreen,
  nowScreen,
  timesheetsScreen,
  employeesScreen,
  apiKeysScreen,
  companyScreen,
  webhooksScreen,
  auditLogScreen,
];
