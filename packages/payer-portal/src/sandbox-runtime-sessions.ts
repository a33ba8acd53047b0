import {
  DomainError,
  type Clock,
  type IdGenerator,
  type LiveSessionView,
  type RuntimeSessionAccess,
  type RuntimeSessionLedger,
  type RuntimeSessions,
  type TenantScope,
} from '@prior-auth/domain';
import { type TokenSigner } from '@prior-auth/platform';
import { signSandboxSessionToken } from './sandbox-session-token';

/** The Express-style path the API mounts the sandbox session page at (the token is the credential). */
export const SANDBOX_SESSION_ROUTE = '/sandbox-portal/sessions/:token';

/** The `provider` of the sessions this adapter runs. */
export const SANDBOX_RUNTIME_PROVIDER = 'sandbox';

export interface SandboxRuntimeSessionsOptions {
  ledger: RuntimeSessionLedger;
  signer: TokenSigner;
  /** Absolute http(s) base the API is reached at, e.g. `https://api.example.com` (a path prefix is kept). */
  baseUrl: string;
  clock: Clock;
  ids: IdGenerator;
}

/**
 * Runtime sessions of the sandbox payer. No browser runs: a session is a ledger row, and "the browser at the
 * payer" is the sandbox portal's session page (SandboxSessionPage), which an opened access grant is sent to
 * through a signed URL expiring with the grant. Production cases get no session here: there is no runtime
 * provider for real payers yet, and a simulated portal must never stand in for one.
 */
export class SandboxRuntimeSessions implements RuntimeSessions {
  private readonly base: string;

  constructor(private readonly options: SandboxRuntimeSessionsOptions) {
    this.base = normalizedBaseUrl(options.baseUrl);
  }

  async provision(scope: TenantScope, authorizationId: string): Promise<{ sessionId: string }> {
    if (scope.environment !== 'sandbox') {
      throw new DomainError(
        'auth_provider_unavailable',
        'No runtime session provider serves payer portals in production.',
        { environment: scope.environment },
        { retryable: true },
      );
    }
    const sessionId = this.options.ids.newId('rs');
    await this.options.ledger.create({
      scope,
      id: sessionId,
      authorizationId,
      provider: SANDBOX_RUNTIME_PROVIDER,
      // Nothing has to start: the simulated portal is ready at once.
      status: 'active',
      createdAt: this.options.clock.now(),
    });
    return { sessionId };
  }

  async liveView(scope: TenantScope, authorizationId: string): Promise<LiveSessionView | null> {
    const session = await this.options.ledger.findLive(scope, authorizationId);
    return session === null
      ? null
      : { sessionId: session.id, status: session.status, startedAt: session.createdAt };
  }

  async release(sessionId: string): Promise<void> {
    await this.options.ledger.end(sessionId, this.options.clock.now());
  }

  async accessUrl(sessionId: string, access: RuntimeSessionAccess, expiresAt: Date): Promise<string | null> {
    const session = await this.options.ledger.find(sessionId);
    if (session === null || session.provider !== SANDBOX_RUNTIME_PROVIDER || session.status === 'ended') {
      return null;
    }
    const token = signSandboxSessionToken(this.options.signer, {
      sid: session.id,
      access,
      exp: expiresAt.getTime(),
    });
    return `${this.base}/sandbox-portal/sessions/${token}`;
  }
}

function normalizedBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error('baseUrl must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error('baseUrl must be an absolute http(s) URL');
  }
  if (url.search !== '' || url.hash !== '') throw new Error('baseUrl must have no query or fragment');
  return url.href.replace(/\/+$/, '');
}
