import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { Executor } from './database.js';
import * as initial from './migrations/0001-initial.js';
import * as events from './migrations/0002-events.js';
import * as breaks from './migrations/0003-breaks.js';
import * as consoleSignIn from './migrations/0004-console.js';
import * as companySettings from './migrations/0005-company-settings.js';
import * as webhooks from './migrations/0006-webhooks.js';
import * as corrections from './migrations/0007-corrections.js';
import * as plannedShifts from './migrations/0008-planned-shifts.js';
import * as sso from './migrations/0009-sso.js';
import * as absences from './migrations/0010-absences.js';
import * as eventNumbering from './migrations/0011-event-numbering.js';
import * as kiosk from './migrations/0012-kiosk.js';
import * as production from './migrations/0013-production.js';
import * as selfService from './migrations/0014-self-service.js';
import * as openSessions from './migrations/0016-open-sessions.js';

const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-events': events,
  '0003-breaks': breaks,
  '0004-console': consoleSignIn,
  '0005-company-settings': companySettings,
  '0006-webhooks': webhooks,
  '0007-corrections': corrections,
  '0008-planned-shifts': plannedShifts,
  '0009-sso': sso,
  '0010-absences': absences,
  '0011-event-numbering': eventNumbering,
  '0012-kiosk': kiosk,
  '0013-production': production,
  '0014-self-service': selfService,
  '0016-open-sessions': openSessions,
};

class InCodeMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

/** Applies pending migrations; safe when several processes start at once (Kysely's migration lock). */
export async function migrateToLatest(db: Executor): Promise<string[]> {
  // Migration numbers are handed out to features before they land, so a database may have run a later
  // number before an earlier one lands (0013 before 0007): each migration stands on its own.
  const migrator = new Migrator({
    db,
    provider: new InCodeMigrationProvider(),
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
