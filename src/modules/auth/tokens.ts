import { randomUUID } from 'node:crypto';
import {
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  SignJWT,
} from 'jose';
import { type Executor } from '../../platform/db/database.js';

export const TOKEN_LIFETIME_SECONDS = 900;
const ALGORITHM = 'ES256';
const CLOCK_TOLERANCE_SECONDS = 30;
const KEY_RELOAD_INTERVAL_MS = 5_000;
/** Verified tokens remembered per process; a client reuses its token for up to 15 minutes. */
const VERIFIED_CACHE_SIZE = 10_000;

export type PrincipalKind = 'api_key' | 'user' | 'device';

export interface TokenClaims {
  principal: PrincipalKind;
  subject: string;
  companyId: string;
  scopes: string[];
  clientId: string | null;
  expiresAt: Date;
}

interface LoadedKey {
  kid: string;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

/**
 * Access tokens: ES256 JWTs. Signing keys live in the database so that every server instance, and the
 * CLI's `user token`, sign and verify with the same keys.
 */
export class TokenService {
  private signing: { kid: string; privateKey: CryptoKey } | null = null;
  private readonly keys = new Map<string, LoadedKey>();
  private lastReload = 0;
  /*
   * Speed trick, kept (see docs/architecture.md, "Kept speed tricks"): checking an ES256 signature is
   * the largest single cost of an authenticated request. A token is immutable, so once its signature,
   * issuer and audience have been checked, the same text needs only its expiry re-checked: tokens
   * that verified are remembered until they expire or are pushed out by newer ones. Revocation is
   * unaffected: the principal is still checked against the database on every request
   * (modules/auth/service.ts, checkPrincipal). Failures are never remembered.
   */
  private readonly verified = new Map<string, TokenClaims>();

  constructor(
    private readonly db: Executor,
    readonly issuer: string,
    readonly audience: string,
    private readonly now: () => number = Date.now,
  ) {}

  async init(): Promise<void> {
    let rows = await this.db
      .selectFrom('signing_keys')
      .selectAll()
      .orderBy('created_at')
      .orderBy('kid')
      .execute();
    if (rows.length === 0) {
      const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { extractable: true });
      const kid = randomUUID();
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALGORITHM, use: 'sig' };
      const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: ALGORITHM };
      await this.db
        .insertInto('signing_keys')
        .values({
          kid,
          algorithm: ALGORITHM,
          private_jwk: JSON.stringify(privateJwk),
          public_jwk: JSON.stringify(publicJwk),
          created_at: new Date(this.now()).toISOString(),
        })
        .execute();
      // Two instances starting on an empty database may both insert; all then sign with the oldest.
      rows = await this.db
        .selectFrom('signing_keys')
        .selectAll()
        .orderBy('created_at')
        .orderBy('kid')
        .execute();
    }
    await this.loadPublicKeys(rows);
    const first = rows[0]!;
    this.signing = {
      kid: first.kid,
      privateKey: (await importJWK(JSON.parse(first.private_jwk) as JWK, ALGORITHM)) as CryptoKey,
    };
  }

  private async loadPublicKeys(rows: { kid: string; public_jwk: string }[]): Promise<void> {
    for (const row of rows) {
      if (this.keys.has(row.kid)) continue;
      const publicJwk = JSON.parse(row.public_jwk) as JWK;
      this.keys.set(row.kid, {
        kid: row.kid,
        publicJwk,
        publicKey: (await importJWK(publicJwk, ALGORITHM)) as CryptoKey,
      });
    }
  }

  jwks(): { keys: JWK[] } {
    return { keys: [...this.keys.values()].map((k) => k.publicJwk) };
  }

  async issue(input: {
    principal: PrincipalKind;
    subject: string;
    companyId: string;
    scopes: string[];
    clientId?: string | null;
  }): Promise<{ token: string; expiresIn: number }> {
    if (!this.signing) throw new Error('TokenService.init() was not called');
    const issuedAt = Math.floor(this.now() / 1000);
    const token = await new SignJWT({
      cid: input.companyId,
      pty: input.principal,
      scope: input.scopes.join(' '),
      ...(input.clientId ? { client_id: input.clientId } : {}),
    })
      .setProtectedHeader({ alg: ALGORITHM, kid: this.signing.kid, typ: 'at+jwt' })
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setSubject(input.subject)
      .setJti(randomUUID())
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + TOKEN_LIFETIME_SECONDS)
      .sign(this.signing.privateKey);
    return { token, expiresIn: TOKEN_LIFETIME_SECONDS };
  }

  private readonly resolveKey: JWTVerifyGetKey = async (header) => {
    const kid = header.kid;
    if (typeof kid !== 'string') throw new Error('token has no kid');
    let key = this.keys.get(kid);
    // A key made by another instance after our start: look it up in our own table, never via jku/x5u.
    if (!key && this.now() - this.lastReload > KEY_RELOAD_INTERVAL_MS) {
      this.lastReload = this.now();
      await this.loadPublicKeys(
        await this.db.selectFrom('signing_keys').select(['kid', 'public_jwk']).execute(),
      );
      key = this.keys.get(kid);
    }
    if (!key) throw new Error('unknown kid');
    return key.publicKey;
  };

  /** The claims of a valid token, or null for anything forged, altered, expired or malformed. */
  async verify(token: string): Promise<TokenClaims | null> {
    const known = this.verified.get(token);
    if (known !== undefined) {
      // jose's rule: expired once exp <= now - tolerance.
      if (known.expiresAt.getTime() > this.now() - CLOCK_TOLERANCE_SECONDS * 1000) return known;
      this.verified.delete(token);
      return null;
    }
    const claims = await this.verifySignedToken(token);
    if (claims !== null) {
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, claims);
    }
    return claims;
  }

  private async verifySignedToken(token: string): Promise<TokenClaims | null> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.resolveKey, {
        algorithms: [ALGORITHM],
        issuer: this.issuer,
        audience: this.audience,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'iat', 'sub'],
        currentDate: new Date(this.now()),
      }));
    } catch {
      // jose throws JOSE errors and, for some malformed inputs, plain TypeErrors: all mean "invalid".
      return null;
    }
    const {
      cid,
      pty,
      scope,
      sub,
      exp,
      client_id: clientId,
    } = payload as JWTPayload & Record<string, unknown>;
    if (
      typeof cid !== 'string' ||
      typeof sub !== 'string' ||
      typeof scope !== 'string' ||
      typeof exp !== 'number'
    )
      return null;
    if (pty !== 'api_key' && pty !== 'user' && pty !== 'device') return null;
    // Frozen: the same object answers every later request with this token.
    return Object.freeze({
      principal: pty,
      subject: sub,
      companyId: cid,
      scopes: Object.freeze(scope === '' ? [] : scope.split(' ')) as string[],
      clientId: typeof clientId === 'string' ? clientId : null,
      expiresAt: new Date(exp * 1000),
    });
  }
}
