import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';

/**
 * A real OpenID Provider on loopback for the single sign-on tests: `oidc-provider` (certified) with
 * a few accounts, a small sign-in page of our own (account and password, or cancel), PKCE required,
 * and a hook on the token endpoint's answer so a test can swap the ID token for one it made (wrong
 * nonce, audience or issuer; tampered; expired) and see every one refused.
 */

export interface TestAccount {
  sub: string;
  email: string;
  emailVerified?: boolean;
  groups?: string[];
  name?: string;
  password?: string;
}

export const PROVIDER_PASSWORD = 'provider password';

export interface TestProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly accounts: Map<string, TestAccount>;
  /** How many HTTP requests the provider has been sent (the address guard's tests: none reach it). */
  requests: number;
  /** Rewrites the token endpoint's JSON answer (null: untouched). */
  tamperTokens: ((body: Record<string, unknown>) => Promise<Record<string, unknown>>) | null;
  /** Signs a JWT with the provider's own key (kid and alg as its ID tokens). */
  sign(payload: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function loginPage(uid: string, loginHint: string, error: string | null): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test provider sign-in</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
<main><h1>Test identity provider</h1>${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${uid}">
<label for="login">Account</label> <input id="login" name="login" value="${escapeHtml(loginHint)}" required>
<label for="password">Password</label> <input id="password" name="password" type="password" required>
<button type="submit" name="action" value="login">Sign in at the provider</button>
<button type="submit" name="action" value="abort" formnovalidate>Cancel</button>
</form></main></body></html>`;
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Our sign-in page: GET shows it, POST signs the account in (or cancels: access_denied). */
async function interaction(
  provider: Provider,
  accounts: Map<string, TestAccount>,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const details = await provider.interactionDetails(req, res);
  const hint = typeof details.params.login_hint === 'string' ? details.params.login_hint : '';
  const page = (error: string | null) => {
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(loginPage(details.uid, hint, error));
  };
  if (req.method === 'GET') return page(null);
  const form = await formBody(req);
  if (form.get('action') === 'abort')
    return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'cancelled' });
  const login = form.get('login') ?? '';
  const account = [...accounts.values()].find((a) => a.sub === login || a.email === login);
  if (!account || form.get('password') !== (account.password ?? PROVIDER_PASSWORD))
    return page('Unknown account or wrong password.');
  return provider.interactionFinished(req, res, { login: { accountId: account.sub } });
}

/** Buffers the token endpoint's answer so `tamper` can rewrite it before it leaves. */
function tamperResponse(
  res: ServerResponse,
  tamper: (body: Record<string, unknown>) => Promise<Record<string, unknown>>,
) {
  const chunks: Buffer[] = [];
  const end = res.end.bind(res);
  res.write = ((chunk: Buffer | string) => {
    chunks.push(Buffer.from(chunk));
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: Buffer | string) => {
    if (chunk) chunks.push(Buffer.from(chunk));
    const original = Buffer.concat(chunks).toString('utf8');
    void (async () => {
      let text = original;
      if (res.statusCode === 200)
        text = JSON.stringify(await tamper(JSON.parse(original) as Record<string, unknown>));
      res.setHeader('content-length', Buffer.byteLength(text));
      end(text);
    })();
    return res;
  }) as typeof res.end;
}

export async function startTestProvider(options: {
  redirectUris: string[];
  accounts?: TestAccount[];
  claimsInIdToken?: boolean;
}): Promise<TestProvider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key-1', use: 'sig', alg: 'RS256' };
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map((options.accounts ?? []).map((a) => [a.sub, a]));
  const client = {
    client_id: 'punchclock',
    client_secret: 'provider secret: with + % and spaces',
    redirect_uris: options.redirectUris,
    response_types: ['code' as const],
    grant_types: ['authorization_code'],
  };
  const ttl = {
    AccessToken: 600,
    AuthorizationCode: 60,
    IdToken: 600,
    Interaction: 600,
    Session: 3600,
    Grant: 3600,
  };
  const configuration: Configuration = {
    clients: [client],
    jwks: { keys: [jwk] },
    cookies: { keys: ['test provider cookie key'] },
    pkce: { required: () => true, methods: ['S256'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    conformIdTokenClaims: !options.claimsInIdToken,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl,
    findAccount: (_ctx, id) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: account.email,
          email_verified: account.emailVerified ?? true,
          name: account.name ?? account.email,
          ...(account.groups ? { groups: account.groups } : {}),
        }),
      };
    },
    // No consent screen: the grant of our one client is implied.
    async loadExistingGrant(ctx) {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId!,
      });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider(issuer, configuration);
  const callback = provider.callback();
  const test: TestProvider = {
    issuer,
    clientId: client.client_id,
    clientSecret: client.client_secret,
    accounts,
    requests: 0,
    tamperTokens: null,
    sign: (payload) =>
      new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: jwk.kid! }).sign(privateKey),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    test.requests++;
    const path = (req.url ?? '/').split('?')[0]!;
    if (path.startsWith('/interaction/')) {
      interaction(provider, accounts, req, res).catch((error: unknown) =>
        res.writeHead(500).end(String(error)),
      );
      return;
    }
    if (path === '/token' && test.tamperTokens) tamperResponse(res, test.tamperTokens);
    void callback(req, res);
  });
  return test;
}
