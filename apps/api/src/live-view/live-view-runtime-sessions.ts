import {
  type LiveSessionInputs,
  type LiveSessionView,
  type RuntimeSessionAccess,
  type RuntimeSessionLedger,
  type RuntimeSessions,
  type TenantScope,
} from '@prior-auth/domain';
import { BROWSER_RUNTIME_PROVIDER } from '@prior-auth/payer-portal';
import { type TokenSigner } from '@prior-auth/platform';
import { signLiveViewToken } from './live-view-token';

/** The Express-style path of the live view; the token is the credential. */
export const LIVE_VIEW_ROUTE = '/live-sessions/:token';

/**
 * The runtime sessions the API answers for: those the API provisions itself (manual handoffs, `inner`) and the
 * browser sessions of portal runs a worker owns (decision 0033). An opened grant on a browser session leads to
 * the API's own live view of it, `{baseUrl}/live-sessions/{token}`: read-only for a live-session grant, and
 * interactive for a manual-handoff grant on a browser session (decision 0038), whose input goes to the worker.
 */
export class LiveViewRuntimeSessions implements RuntimeSessions {
  constructor(
    private readonly inner: RuntimeSessions,
    private readonly options: {
      ledger: RuntimeSessionLedger;
      inputs: LiveSessionInputs;
      signer: TokenSigner;
      baseUrl: string;
      clock: { now(): Date };
    },
  ) {}

  /**
   * A handoff adopts the browser page a worker keeps for an operator (the portal demanded a human, decision
   * 0038) when the case has one; otherwise the inner provider provisions a session.
   */
  async provision(
    scope: TenantScope,
    authorizationId: string,
  ): Promise<{ sessionId: string; adopted?: boolean }> {
    const live = await this.options.ledger.findLive(scope, authorizationId);
    if (live?.provider === BROWSER_RUNTIME_PROVIDER) {
      const heldUntil = await this.options.inputs.heldUntil(live.id);
      if (heldUntil !== null && heldUntil.getTime() > this.options.clock.now().getTime()) {
        return { sessionId: live.id, adopted: true };
      }
    }
    return this.inner.provision(scope, authorizationId);
  }

  liveView(scope: TenantScope, authorizationId: string): Promise<LiveSessionView | null> {
    return this.inner.liveView(scope, authorizationId);
  }

  release(sessionId: string): Promise<void> {
    return this.inner.release(sessionId);
  }

  async accessUrl(
    sessionId: string,
    access: RuntimeSessionAccess,
    expiresAt: Date,
    grantId?: string,
  ): Promise<string | null> {
    const session = await this.options.ledger.find(sessionId);
    if (session?.provider !== BROWSER_RUNTIME_PROVIDER) {
      return this.inner.accessUrl(sessionId, access, expiresAt, grantId);
    }
    if (session.status === 'ended' || grantId === undefined) return null;
    const token = signLiveViewToken(this.options.signer, {
      sid: session.id,
      gid: grantId,
      access,
      exp: expiresAt.getTime(),
    });
    return `${this.options.baseUrl.replace(/\/+$/, '')}/live-sessions/${token}`;
  }
}
