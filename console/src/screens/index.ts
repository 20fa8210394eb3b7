import { absencesScreen } from '../features/absences/screen.js';
import { apiKeysScreen } from '../features/api-keys/screen.js';
import { auditLogScreen } from '../features/audit/screen.js';
import { companyScreen } from '../features/companies/screen.js';
import { employeesScreen } from '../features/employees/screen.js';
import { timeEntriesScreen } from '../features/time-tracking/entries/screen.js';
import { nowScreen } from '../features/time-tracking/now/screen.js';
import { rosterScreen } from '../features/planned-shifts/screen.js';
import { timesheetsScreen } from '../features/timesheets/screen.js';
import { webhooksScreen } from '../features/webhooks/screen.js';
import { devicesScreen } from '../features/devices/screen.js';
import { myAbsencesScreen } from '../features/self-service/absences-screen.js';
import { dayScreen } from '../features/self-service/day-screen.js';
import { timeScreen } from '../features/self-service/time-screen.js';
import type { Screen } from './registry.js';

/** Every screen, in navigation order. */
export const SCREENS: readonly Screen[] = [
  // Self-service (issue 35): a person linked to an employee, their own day, time and absences.
  dayScreen,
  timeScreen,
  myAbsencesScreen,
  timeEntriesScreen,
  nowScreen,
  rosterScreen,
  timesheetsScreen,
  absencesScreen,
  employeesScreen,
  devicesScreen,
  apiKeysScreen,
  companyScreen,
  webhooksScreen,
  auditLogScreen,
];
