import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/app/server.js';
import { loadConfig } from '../../src/platform/config.js';
import { type TestDatabase, testDialects } from '../support/databases.js';
import { runCli } from '../support/processes.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * Issue 22: operators manage webhook endpoints with `punchclock webhook …`. An operator's endpoint has
 * no creating key, so it may take every event type; deliveries are made by the serving instance.
 */
const ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_POLL_INTERVAL_MS: '100',
};

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'punchclock webhook on %s',
  (_name, dialect) => {
    let database: TestDatabase;
    let receiver: WebhookReceiver;
    const saved = { ...process.env };
    beforeAll(async () => {
      Object.assign(process.env, ENV);
      database = await dialect.create();
      receiver = await new WebhookReceiver().start();
    });
    afterAll(async () => {
      process.env = saved;
      await receiver.stop();
      await database.drop();
    });

    const json = async (...args: string[]) => {
      const result = await runCli(database.url, ...args, '--json');
      expect(result, args.join(' ')).toMatchObject({ code: 0, stderr: '' });
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };

    it('create (secret shown once), list, deliveries, replay, delete; an operator endpoint takes every type', async () => {
      const company = (await json('company', 'create', '--name', 'Hooks')) as { id: string };
      const created = (await json(
        'webhook',
        'create',
        '--company',
        company.id,
        '--url',
        receiver.url,
        '--events',
        'employee.created,employee.deleted',
      )) as { id: string; secret: string; eventTypes: string[]; status: string };
      expect(created).toMatchObject({
        eventTypes: ['employee.created', 'employee.deleted'],
        status: 'active',
      });
      expect(created.secret).toMatch(/^whsec_/);
      receiver.secrets = [created.secret];

      const listed = (await json('webhook', 'list', '--company', company.id)) as { items: { id: string }[] };
      expect(listed.items.map((e) => e.id)).toEqual([created.id]);
      expect(JSON.stringify(listed)).not.toContain('whsec_');
      const human = await runCli(database.url, 'webhook', 'list', '--company', company.id);
      expect(human.stdout).toContain(`${created.id}  ${receiver.url}`);

      const refused = await runCli(
        database.url,
        'webhook',
        'create',
        '--company',
        company.id,
        '--url',
        'http://169.254.169.254/',
        '--events',
        'employee.created',
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^error: url: is refused: .*metadata.*\n$/);
      const unknown = await runCli(
        database.url,
        'webhook',
        'create',
        '--company',
        company.id,
        '--url',
        receiver.url,
        '--events',
        'nope.nope',
      );
      expect(unknown).toMatchObject({ code: 1 });
      expect(unknown.stderr).toMatch(/unknown event type nope\.nope/);

      const server = await startServer(
        loadConfig({ DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'silent', ...ENV }),
        {
          logger: false,
        },
      );
      try {
        await json('employee', 'create', '--company', company.id, '--email', 'hook@acme.example');
        const [delivery] = await receiver.waitFor((got) => got.length >= 1);
        expect(delivery!.payload.type).toBe('employee.created');
        expect(delivery!.verifiedWith).toEqual([created.secret]);

        const deliveries = (await json('webhook', 'deliveries', created.id, '--company', company.id)) as {
          items: { id: string; eventId: string; status: string }[];
        };
        expect(deliveries.items).toHaveLength(1);
        expect(deliveries.items[0]).toMatchObject({ eventId: delivery!.id });
        expect(
          await json(
            'webhook',
            'replay',
            created.id,
            '--company',
            company.id,
            '--delivery',
            deliveries.items[0]!.id,
          ),
        ).toEqual({
          queued: 1,
        });
        const again = await receiver.waitFor((got) => got.length >= 2);
        expect(again[1]!.id).toBe(delivery!.id);
        expect(
          await json(
            'webhook',
            'replay',
            created.id,
            '--company',
            company.id,
            '--from',
            '2000-01-01T00:00:00Z',
          ),
        ).toEqual({ queued: 1 });
      } finally {
        await server.close();
      }
      expect(await json('webhook', 'delete', created.id, '--company', company.id)).toEqual({
        id: created.id,
        deleted: true,
      });
      const gone = await runCli(database.url, 'webhook', 'delete', created.id, '--company', company.id);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toMatch(/no webhook endpoint/);
    });
  },
);
