import type { Authorization, IssuedGrant, LiveSessionView, ManualHandoff } from '@prior-auth/domain';

/*
 * The spec's ManualHandoff result and the two access-grant shapes (decision 0014). Internal fields (the
 * runtime session, the interaction lineage, operator notes, reasons) never reach a client.
 */

const iso = (date: Date): string => new Date(date).toISOString();

const authorizationRef = (authorization: Pick<Authorization, 'id' | 'version' | 'status'>) => ({
  id: authorization.id,
  version: authorization.version,
  status: authorization.status,
});

export function presentManualHandoff(
  handoff: ManualHandoff,
  authorization: Pick<Authorization, 'id' | 'version' | 'status'>,
) {
  const state = handoff.toState();
  return {
    manualHandoffId: state.id,
    state: state.state,
    result: state.result,
    authorization: authorizationRef(authorization),
    ...(state.reconciliation !== null
      ? { reconciliation: { id: state.reconciliation.id, state: state.reconciliation.state } }
      : {}),
    version: state.version,
    createdAt: iso(state.createdAt),
    expiresAt: iso(state.expiresAt),
    closedAt: state.closedAt === null ? null : iso(state.closedAt),
  };
}

export const handoffEtag = (handoff: ManualHandoff): string => `"${handoff.version}"`;

export const presentManualHandoffAccessGrant = (grant: IssuedGrant) => ({
  id: grant.id,
  url: grant.url,
  expiresAt: iso(grant.expiresAt),
});

export const presentLiveSessionAccessGrant = (grant: IssuedGrant) => ({
  ...presentManualHandoffAccessGrant(grant),
  access: 'read_only' as const,
});

export function presentLiveSession(authorization: Authorization, session: LiveSessionView | null) {
  const live = session !== null && session.status !== 'ended' ? session : null;
  return {
    authorization: authorizationRef(authorization),
    available: live !== null,
    status: live?.status ?? null,
    startedAt: live?.startedAt === undefined ? null : iso(live.startedAt),
  };
}
