import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPunchclockClient,
  PunchclockError,
  verifyWebhook,
  WebhookVerificationError,
} from '../../client/src/index.js';
import { compileConsumer, consumerProject, ROOT } from '../support/client-package.js';
import { testDialects } from '../support/databases.js';
import { createCompanyFixture, startTestServer, type TestServer } from '../support/server.js';
import { freePort } from '../support/processes.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * The typed client's webhook operations against a real server, and its verifyWebhook checked
 * against the `standardwebhooks` package on real deliveries and on forged ones.
 */
const secretOf = () => `whsec_${randomBytes(32).toString('base64')}`;

/** What the reference implementation says of a delivery: its parsed body, or that it refuses it. */
function reference(body: string, headers: Record<string, string>, secret: string): unknown {
  try {
    return new Webhook(secret).verify(body, headers);
  } catch {
    return 'refused';
  }
}

function ours(body: string, headers: Record<string, string>, secrets: string | string[]): unknown {
  try {
    return verifyWebhook(body, headers, secrets);
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return 'refused';
  }
}

describe('verifyWebhook agrees with the standardwebhooks package', () => {
  it('accepts what it signs and refuses what it refuses', () => {
    const secret = secretOf();
    const wh = new Webhook(secret);
    const body = '{"type":"ping","timestamp":"2026-11-24T10:00:00.000Z","data":{"endpointId":"x"}}';
    const now = new Date();
    const ts = String(Math.floor(now.getTime() / 1000));
    const signature = wh.sign('evt_1', now, body);
    const good = { 'webhook-id': 'evt_1', 'webhook-timestamp': ts, 'webhook-signature': signature };
    const cases: Record<string, string>[] = [
      good,
      { ...good, 'webhook-id': 'evt_2' },
      { ...good, 'webhook-timestamp': String(Number(ts) - 600) },
      { ...good, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` },
      { ...good, 'webhook-signature': `v1,AAAA ${signature}` },
      { ...good, 'webhook-signature': signature.replace('v1,', 'v2,') },
      { 'webhook-id': 'evt_1', 'webhook-timestamp': ts },
    ];
    for (const headers of cases) {
      expect(ours(body, headers, secret), JSON.stringify(headers)).toEqual(reference(body, headers, secret));
      expect(ours(`${body} `, headers, secret)).toBe('refused');
    }
    expect(ours(body, good, secret)).toEqual(JSON.parse(body));
    expect(ours(body, good, [secretOf(), secret])).toEqual(JSON.parse(body));
    expect(ours(body, good, secretOf())).toBe('refused');
    // Headers as a fetch Headers object, and the body as bytes.
    expect(verifyWebhook(Buffer.from(body), new Headers(good), secret)).toEqual(JSON.parse(body));
  });
});

describe.each(testDialects().map((d) => [d.name, d] as const))('client webhooks on %s', (_name, dialect) => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      env: {
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        WEBHOOK_POLL_INTERVAL_MS: '100',
      },
    });
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await server.stop();
    await receiver.stop();
  });

  it('manages endpoints, and each delivery verifies with verifyWebhook as with standardwebhooks', async () => {
    const fixture = await createCompanyFixture(server.ctx, {
      scopes: 'attendance.record,attendance.read,employees.read,webhooks.manage',
    });
    const client = createPunchclockClient({
      baseUrl: server.listenUrl,
      clientId: fixture.key.clientId,
      clientSecret: fixture.key.secret,
    });
    const created = await client.createWebhook({ url: receiver.url, eventTypes: ['time_entry.opened'] });
    expect(created.secret).toMatch(/^whsec_/);
    receiver.secrets = [created.secret];
    expect((await client.listWebhooks()).items.map((w) => w.id)).toEqual([created.id]);
    expect((await client.getWebhook(created.id)).status).toBe('active');
    expect((await client.updateWebhook(created.id, { description: 'client' })).description).toBe('client');
    await client.recordClockEvent({
      employee: { id: fixture.employees[0]!.id },
      type: 'clock_in',
      occurredAt: new Date(Date.now() - 60_000).toISOString(),
    });
    const rotated = await client.rotateWebhookSecret(created.id);
    expect(await client.testWebhook(created.id)).toEqual({ queued: 1 });
    receiver.secrets = [created.secret, rotated.secret];
    const received = await receiver.waitFor((got) => got.length >= 2);
    for (const delivery of received) {
      const headers = {
        'webhook-id': delivery.id,
        'webhook-timestamp': delivery.timestamp,
        'webhook-signature': delivery.signatures.join(' '),
      };
      // Sent before the rotation: the old secret's signature; after it: both.
      const event = verifyWebhook(delivery.body, headers, [created.secret, rotated.secret]);
      expect(delivery.verifiedWith).not.toHaveLength(0);
      expect(event).toEqual(reference(delivery.body, headers, delivery.verifiedWith[0]!));
      if (delivery.signatures.length === 2)
        expect(verifyWebhook(delivery.body, headers, rotated.secret)).toEqual(event);
      if (event.type === 'time_entry.opened') expect(event.data.employee.id).toBe(fixture.employees[0]!.id);
    }
    const deliveries = await client.listWebhookDeliveries(created.id);
    expect(deliveries.items.map((d) => d.eventType).sort()).toEqual(['ping', 'time_entry.opened']);
    expect(await client.replayWebhook(created.id, { deliveryId: deliveries.items[0]!.id })).toEqual({
      queued: 1,
    });
    await client.deleteWebhook(created.id);
    await expect(client.getWebhook(created.id)).rejects.toBeInstanceOf(PunchclockError);
  });
});

describe("the README's webhook receiver", () => {
  let workDir: string;
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('compiles against the client package, acknowledges a signed delivery and refuses a forged one', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(
      readme.indexOf('<!-- webhook-receiver:start -->'),
      readme.indexOf('<!-- webhook-receiver:end -->'),
    );
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(code).toBeDefined();
    workDir = await consumerProject('punchclock-receiver-', 'receiver.ts', code!);
    await compileConsumer(workDir);
    const port = await freePort();
    const secret = secretOf();
    child = spawn(process.execPath, [join(workDir, 'out', 'receiver.js')], {
      env: { ...process.env, PORT: String(port), PUNCHCLOCK_WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += String(chunk)));
    const body = JSON.stringify({
      type: 'time_entry.completed',
      timestamp: new Date().toISOString(),
      data: { id: 'entry-1', totalHours: 7.5 },
    });
    const now = new Date();
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'evt_readme',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('evt_readme', now, body),
    };
    const post = async (sent: Record<string, string>) => {
      for (let i = 0; ; i++) {
        try {
          return (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: sent, body })).status;
        } catch (error) {
          if (i > 50) throw error;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    expect(await post(headers)).toBe(204);
    expect(
      await post({ ...headers, 'webhook-signature': new Webhook(secretOf()).sign('evt_readme', now, body) }),
    ).toBe(401);
    expect(await post(headers)).toBe(204); // a repeat: acknowledged, applied once
    await expect.poll(() => output).toBe('completed entry-1 7.5\n');
    // Two tsc runs (the package, the receiver): as long as the README examples' build may take.
  }, 120_000);
});
