import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkUrl, refusalOf, vetHost } from '../../src/modules/webhooks/address-guard.js';
import { keepAliveAgents, postWebhook } from '../../src/modules/webhooks/outbound.js';
import { openSecret, sealSecret, newWebhookSecret } from '../../src/modules/webhooks/secrets.js';
import { retryDelayMs } from '../../src/modules/webhooks/dispatcher.js';
import { signatureHeader } from '../../src/domain/webhook-signature.js';
import { Webhook } from 'standardwebhooks';
import { randomBytes } from 'node:crypto';

const OPEN = { allowHttp: true, allowedHosts: [] as string[] };

describe('the SSRF guard', () => {
  it('refuses every address that is not public unicast, unless listed', () => {
    for (const address of [
      '127.0.0.1',
      '::1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.0.1',
      '169.254.169.254',
      'fd00:ec2::254',
      'fe80::1',
      'fc00::1',
      '100.64.0.1',
      '100.100.100.200',
      '0.0.0.0',
      '::',
      '224.0.0.1',
      '255.255.255.255',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      '2002:7f00:1::',
      '64:ff9b::7f00:1',
      '::7f00:1',
      '::a9fe:a9fe',
      '::808:808',
      '168.63.129.16',
    ])
      expect(refusalOf(address, OPEN), address).not.toBeNull();
    expect(refusalOf('169.254.169.254', OPEN)).toMatch(/metadata/);
    for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8'])
      expect(refusalOf(address, OPEN), address).toBeNull();
    const listed = { allowHttp: true, allowedHosts: ['127.0.0.1', '10.0.0.0/8', '::1'] };
    expect(refusalOf('127.0.0.1', listed)).toBeNull();
    expect(refusalOf('::ffff:127.0.0.1', listed)).toBeNull();
    expect(refusalOf('10.200.1.1', listed)).toBeNull();
    expect(refusalOf('::1', listed)).toBeNull();
    expect(refusalOf('127.0.0.2', listed)).not.toBeNull();
    expect(refusalOf('169.254.169.254', listed)).not.toBeNull();
  });

  it('wants an absolute https URL without credentials (http only when allowed)', () => {
    const strict = { allowHttp: false, allowedHosts: [] };
    expect(checkUrl('http://example.com/', strict)).toHaveProperty('problem');
    expect(checkUrl('https://example.com/', strict)).toHaveProperty('url');
    expect(checkUrl('example.com/hook', strict)).toHaveProperty('problem');
    expect(checkUrl('https://u:p@example.com/', strict)).toHaveProperty('problem');
    expect(checkUrl('file:///etc/passwd', OPEN)).toHaveProperty('problem');
  });

  it('a DNS name resolving to loopback is refused', async () => {
    // A name's refusal does not tell the caller what it resolves to (the server logs it).
    await expect(vetHost('localhost', OPEN)).rejects.toThrow(/^localhost resolves to a non-public address$/);
    await expect(vetHost('localhost', OPEN)).rejects.toMatchObject({
      detail: expect.stringMatching(/127\.0\.0\.1|::1/),
    });
  });
});

describe('postWebhook', () => {
  let server: Server;
  let port = 0;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((request, response) => {
      hits++;
      if (request.url === '/big') {
        response.writeHead(500);
        response.write(Buffer.alloc(1024 * 1024, 'x'));
        return; // never ends: only 64 KiB are read, then the connection is dropped
      }
      if (request.url === '/hang') return;
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('connects only to vetted addresses: a name resolving to loopback is refused before any connection', async () => {
    hits = 0;
    const outcome = await postWebhook(`http://localhost:${port}/`, {}, '{}', OPEN);
    expect(outcome.status).toBeNull();
    expect(outcome.error).toBe('refused: localhost resolves to a non-public address');
    const literal = await postWebhook(`http://127.0.0.1:${port}/`, {}, '{}', OPEN);
    expect(literal.error).toMatch(/^refused/);
    expect(hits).toBe(0);
    // Listed: the name is resolved by the guard and the vetted address connected to.
    const allowed = { allowHttp: true, allowedHosts: ['127.0.0.1', '::1'] };
    expect((await postWebhook(`http://localhost:${port}/`, {}, '{}', allowed)).status).toBe(204);
    expect(hits).toBe(1);
  });

  it('reads at most 64 KiB of an answer and gives up after the timeout', async () => {
    const allowed = { allowHttp: true, allowedHosts: ['127.0.0.1'] };
    const big = await postWebhook(`http://127.0.0.1:${port}/big`, {}, '{}', allowed);
    expect(big.status).toBe(500);
    const hung = await postWebhook(`http://127.0.0.1:${port}/hang`, {}, '{}', allowed, 300);
    expect(hung).toMatchObject({ status: null, error: 'timeout after 300 ms' });
  });

  it('counts name resolution within the timeout: a slow or hanging lookup never stretches an attempt', async () => {
    const allowed = { allowHttp: true, allowedHosts: ['127.0.0.1'] };
    const slow = async () => {
      await new Promise((resolve) => setTimeout(resolve, 250));
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const started = performance.now();
    const late = await postWebhook(`http://receiver.test:${port}/hang`, {}, '{}', allowed, 400, slow);
    expect(late).toMatchObject({ status: null, error: 'timeout after 400 ms' });
    expect(performance.now() - started).toBeLessThan(600);
    const never = () => new Promise<{ address: string; family: number }[]>(() => {});
    const hung = await postWebhook(`http://receiver.test:${port}/`, {}, '{}', allowed, 300, never);
    expect(hung).toMatchObject({ status: null, error: 'timeout after 300 ms' });
  });
});

describe('postWebhook over kept-alive connections (issue 36)', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  /** Requests served per connection; the connection's second request is cut off when `cutSecond`. */
  let cutSecond = false;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((request, response) => {
      requests++;
      const socket = request.socket as typeof request.socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      request.resume();
      request.on('end', () => {
        // A receiver that closed the kept connection as the next request arrived on it.
        if (cutSecond && socket.served === 2) socket.destroy();
        else response.writeHead(204).end();
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const allowed = { allowHttp: true, allowedHosts: ['127.0.0.1'] };

  it('sends one endpoint’s deliveries over one connection, and still vets every send', async () => {
    const agents = keepAliveAgents();
    try {
      connections = 0;
      for (let i = 0; i < 5; i++)
        expect(
          (await postWebhook(`http://127.0.0.1:${port}/`, {}, '{}', allowed, 1000, vetHost, agents)).status,
        ).toBe(204);
      expect(connections).toBe(1);
      // A kept connection is no way around the guard: a policy that does not list loopback is refused.
      const refused = await postWebhook(`http://127.0.0.1:${port}/`, {}, '{}', OPEN, 1000, vetHost, agents);
      expect(refused.error).toMatch(/^refused/);
      expect(connections).toBe(1);
    } finally {
      agents.destroy();
    }
  });

  it('a kept connection the receiver closed is replaced by a new one within the same attempt', async () => {
    const agents = keepAliveAgents();
    try {
      cutSecond = true;
      connections = 0;
      requests = 0;
      expect(
        (await postWebhook(`http://127.0.0.1:${port}/`, {}, '{}', allowed, 1000, vetHost, agents)).status,
      ).toBe(204);
      const second = await postWebhook(`http://127.0.0.1:${port}/`, {}, '{}', allowed, 1000, vetHost, agents);
      expect(second).toMatchObject({ status: 204, error: null });
      expect(connections).toBe(2);
      expect(requests).toBe(3);
    } finally {
      cutSecond = false;
      agents.destroy();
    }
  });
});

describe('secrets and signatures', () => {
  it('seals secrets with AES-256-GCM and signs as the standardwebhooks package verifies', () => {
    const key = randomBytes(32);
    const secret = newWebhookSecret();
    const sealed = sealSecret(key, secret);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(openSecret(key, sealed)).toBe(secret);
    expect(() => openSecret(randomBytes(32), sealed)).toThrow(/another key/);
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    expect(() => openSecret(key, tampered)).toThrow();
    const other = newWebhookSecret();
    const ts = Math.floor(Date.now() / 1000);
    const header = signatureHeader([secret, other], 'msg_1', ts, '{"a":1}');
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': header };
    expect(new Webhook(secret).verify('{"a":1}', headers)).toEqual({ a: 1 });
    expect(new Webhook(other).verify('{"a":1}', headers)).toEqual({ a: 1 });
    expect(() => new Webhook(newWebhookSecret()).verify('{"a":1}', headers)).toThrow();
  });

  it('retry delays follow the schedule within ±20% and end with it', () => {
    expect(retryDelayMs([5, 30], 1, () => 0)).toBe(4000);
    expect(retryDelayMs([5, 30], 2, () => 1)).toBe(36_000);
    expect(retryDelayMs([5, 30], 3)).toBeNull();
  });
});
