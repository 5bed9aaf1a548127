import { randomUUID } from 'node:crypto';
import { errors, type JWTHeaderParameters, jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../core/clock.js';
import type { KnownClients } from './known-clients.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS, CLOCK_TOLERANCE_SECONDS, READ_SCOPE } from './policy.js';
import { SIGNING_ALG, type SigningKeyStore } from './signing-keys.js';
import type { AuthUrls } from './urls.js';

export const ACCESS_TOKEN_TYPE = 'at+jwt';

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  /** `read`, then the granted agent scopes asked for (`read hold`). */
  scope: string;
}

/** A person's claim a token carries: the claim's id, and the person's pairwise `sub`. */
export interface TokenClaim {
  claimId: string;
  subject: string;
}

export interface VerifiedToken {
  clientId: string;
  scope: typeof READ_SCOPE;
  /** Every scope of the token, `read` first. */
  scopes: readonly string[];
  claim?: TokenClaim;
}

/** Whether a claim is still in force for its client (a database probe: revocations hold at once). */
export type ClaimCheck = (claimId: string, clientId: string) => Promise<boolean>;

// What a token's `claim` member may look like (a claim id).
const CLAIM_ID = /^[A-Za-z0-9_-]{22}$/;
const KNOWN_SCOPES = new Set([READ_SCOPE, 'hold', 'alerts']);

/**
 * Why a presented token was refused. `description` is fixed text, safe to put in a
 * WWW-Authenticate quoted-string (RFC 6750 §3: no `"` or `\`) and in a response body; it never
 * echoes the token or a library message.
 */
export class InvalidTokenError extends Error {
  readonly code = 'invalid_token';
  constructor(
    readonly description: string,
    /**
     * For an expired token of ours that carried a person's scopes (`read hold`): those scopes, for
     * the challenge (RFC 6750 §3), so that a client renewing it by itself asks them again.
     */
    readonly renewScope?: string,
  ) {
    super(description);
  }
}

/**
 * The scopes of an expired token whose signature held (jose checks it before the claims), when
 * they are more than `read`: the MCP SDK 2.x renews a token with the challenge's scope, else with
 * the protected resource metadata's (`read` only), and a claimed agent would lose `hold`.
 */
function renewScopeOf(err: unknown): string | undefined {
  if (!(err instanceof errors.JWTExpired)) return undefined;
  const { scope, claim } = err.payload as { scope?: unknown; claim?: unknown };
  if (typeof scope !== 'string' || typeof claim !== 'string') return undefined;
  const scopes = scope.split(' ');
  return scopes.length > 1 && scopes[0] === READ_SCOPE && scopes.every((s) => KNOWN_SCOPES.has(s)) ? scope : undefined;
}

const MALFORMED = 'The access token is malformed.';

function describe(err: unknown): string {
  if (err instanceof InvalidTokenError) return err.description;
  if (err instanceof errors.JWTExpired) return 'The access token has expired; request a new one.';
  if (err instanceof errors.JWTClaimValidationFailed) {
    switch (err.claim) {
      case 'nbf':
        return 'The access token is not valid yet.';
      case 'iat':
        return 'The access token has an invalid issue time.';
      case 'iss':
        return 'The access token was not issued by this authorization server.';
      case 'aud':
        return 'The access token is not intended for this resource.';
      case 'typ':
        return 'The access token must be a JWT access token (typ at+jwt).';
      default:
        return /^[a-z_]{1,20}$/.test(err.claim)
          ? `The access token lacks a valid ${err.claim} claim.`
          : 'The access token has an invalid claim.';
    }
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return 'The access token must be signed with ES256.';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'The access token signature is invalid.';
  return MALFORMED;
}

/** Issues and verifies RFC 9068 access tokens. */
export class AccessTokens {
  private readonly audiences: string[];

  constructor(
    readonly keys: SigningKeyStore,
    private readonly urls: AuthUrls,
    private readonly clock: Clock,
    /** When given, a token's client must still be registered. */
    private readonly clients?: KnownClients,
    /** When given, a token carrying a claim is refused once the claim is revoked. */
    private readonly claimCheck?: ClaimCheck,
  ) {
    this.audiences = [urls.mcpResource, urls.rootResource];
  }

  /** The resource identifiers a client may ask a token for (RFC 8707 `resource`). */
  get resources(): readonly string[] {
    return this.audiences;
  }

  /**
   * A token for `clientId`: scope `read`, or `grant.scope`; a claimed client's token carries the
   * claim's id (`claim`) and the person's pairwise identifier as `sub` (never their email).
   */
  async issue(
    clientId: string,
    audience: string | string[] = this.urls.mcpResource,
    grant: { scope?: string; claim?: TokenClaim } = {},
  ): Promise<IssuedToken> {
    const { kid, privateKey } = this.keys.signingKey();
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const scope = grant.scope ?? READ_SCOPE;
    const accessToken = await new SignJWT({
      client_id: clientId,
      scope,
      ...(grant.claim ? { claim: grant.claim.claimId } : {}),
    })
      .setProtectedHeader({ alg: SIGNING_ALG, typ: ACCESS_TOKEN_TYPE, kid })
      .setIssuer(this.urls.issuer)
      .setAudience(audience)
      .setSubject(grant.claim?.subject ?? clientId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ACCESS_TOKEN_LIFETIME_SECONDS)
      .setJti(randomUUID())
      .sign(privateKey);
    return { accessToken, expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS, scope };
  }

  /** Verifies a presented access token; throws InvalidTokenError saying why it is refused. */
  async verify(token: string): Promise<VerifiedToken> {
    const verified = await this.verifySigned(token);
    // Outside the signature check's error mapping: a database failure here is not a bad token.
    if (verified.claim && this.claimCheck && !(await this.claimCheck(verified.claim.claimId, verified.clientId)))
      throw new InvalidTokenError(
        "The person withdrew this client's authorisation (its claim is revoked); request a new token.",
      );
    return verified;
  }

  private async verifySigned(token: string): Promise<VerifiedToken> {
    try {
      const { payload } = await jwtVerify(
        token,
        async (header: JWTHeaderParameters) => {
          // Checked before the key lookup so that alg none, HS256 and friends fail the same way
          // whatever their kid says.
          if (header.alg !== SIGNING_ALG) throw new InvalidTokenError('The access token must be signed with ES256.');
          if (typeof header.kid !== 'string' || header.kid.length === 0 || header.kid.length > 100)
            throw new InvalidTokenError('The access token header lacks a kid.');
          const key = await this.keys.verificationKey(header.kid);
          if (!key)
            throw new InvalidTokenError(
              'The access token was signed with an unknown or retired key; request a new one.',
            );
          return key;
        },
        {
          algorithms: [SIGNING_ALG],
          typ: ACCESS_TOKEN_TYPE,
          issuer: this.urls.issuer,
          audience: this.audiences,
          currentDate: this.clock.now(),
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['iss', 'aud', 'exp', 'iat', 'jti', 'sub', 'client_id', 'scope'],
        },
      );
      const clientId = payload.client_id;
      if (typeof clientId !== 'string' || clientId.length === 0)
        throw new InvalidTokenError('The access token lacks a valid client_id claim.');
      // An unclaimed client's token names the client as sub; a claimed one's names the person.
      const claimId = payload.claim;
      if (claimId !== undefined && (typeof claimId !== 'string' || !CLAIM_ID.test(claimId)))
        throw new InvalidTokenError('The access token has an invalid claim member.');
      if (
        claimId === undefined
          ? payload.sub !== clientId
          : typeof payload.sub !== 'string' || !payload.sub.startsWith('psn_')
      )
        throw new InvalidTokenError(
          claimId === undefined
            ? 'The access token lacks a valid client_id claim.'
            : 'The access token lacks a valid sub claim.',
        );
      if (typeof payload.jti !== 'string') throw new InvalidTokenError('The access token lacks a valid jti claim.');
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
      if (!scopes.includes(READ_SCOPE)) throw new InvalidTokenError('The access token lacks the read scope.');
      if (!scopes.every((scope) => KNOWN_SCOPES.has(scope)))
        throw new InvalidTokenError('The access token has a scope this server does not issue.');
      // Agent scopes only ever come with a person's claim.
      if (claimId === undefined && scopes.length > 1)
        throw new InvalidTokenError('The access token has a scope this server does not issue.');
      // jose checks exp and nbf, not whether the claims are ones this server would have written:
      // a token signed with a leaked or misused key must not outlive what we issue.
      const now = Math.floor(this.clock.now().getTime() / 1000);
      const { iat, exp } = payload as { iat: number; exp: number };
      if (iat > now + CLOCK_TOLERANCE_SECONDS)
        throw new InvalidTokenError('The access token has an issue time in the future.');
      if (exp - iat > ACCESS_TOKEN_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS)
        throw new InvalidTokenError('The access token lives longer than the tokens this server issues.');
      if (this.clients && !(await this.clients.has(clientId)))
        throw new InvalidTokenError('The access token was issued to a client that is not registered; register again.');
      return {
        clientId,
        scope: READ_SCOPE,
        scopes,
        ...(claimId !== undefined ? { claim: { claimId, subject: payload.sub as string } } : {}),
      };
    } catch (err) {
      if (err instanceof InvalidTokenError) throw err;
      throw new InvalidTokenError(describe(err), renewScopeOf(err));
    }
  }
}
