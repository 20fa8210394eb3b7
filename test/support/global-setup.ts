import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string | null;
  }
}

const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Every storage test runs on SQLite and, when one answers, on PostgreSQL. Under CI=true PostgreSQL is
 * required: an unreachable server fails the run instead of silently halving it.
 */
export default async function setup(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL || DEFAULT_ADMIN_URL;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    project.provide('postgresAdminUrl', url);
  } catch (error) {
    if (process.env.CI === 'true' || process.env.TEST_DATABASE_URL)
      throw new Error(
        `PostgreSQL is required for this test run but did not answer at ${url}: ${String(error)}`,
      );
    console.warn(`PostgreSQL did not answer at ${url}; running the storage tests on SQLite only.`);
    project.provide('postgresAdminUrl', null);
  } finally {
    await client.end().catch(() => {});
  }
}
