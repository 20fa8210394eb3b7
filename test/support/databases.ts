import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

export interface TestDialect {
  readonly name: 'sqlite' | 'postgres';
  create(): Promise<TestDatabase>;
}

function withDatabase(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

const sqlite: TestDialect = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'punchclock-test-'));
    return {
      url: `sqlite:${join(dir, 'test.sqlite')}`,
      async drop() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

function postgres(adminUrl: string): TestDialect {
  return {
    name: 'postgres',
    async create() {
      const name = `punchclock_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`create database ${name}`);
      } finally {
        await admin.end();
      }
      return {
        url: withDatabase(adminUrl, name),
        async drop() {
          const client = new pg.Client({ connectionString: adminUrl });
          await client.connect();
          try {
            await client.query(`drop database if exists ${name} with (force)`);
          } finally {
            await client.end();
          }
        },
      };
    },
  };
}

/** The dialects this run covers: SQLite always, PostgreSQL when the global setup found one. */
export function testDialects(): TestDialect[] {
  const adminUrl = inject('postgresAdminUrl');
  return adminUrl ? [sqlite, postgres(adminUrl)] : [sqlite];
}
