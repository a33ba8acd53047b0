import {
  Authorization,
  File,
  ManualHandoff,
  type ResourceEvent,
  type ResourceSnapshot,
} from '@prior-auth/domain';
import { presentAuthorization } from './authorization.presenter';
import { presentLegacyAuthorization } from './legacy-authorization.presenter';
import { presentFile } from './file.presenter';
import { presentManualHandoff } from './manual-handoff.presenter';

/*
 * An event as integrators read it (spec decision 22, docs/decisions/0031-events-and-webhooks.md):
 * `{id, type, createdAt, authorizationId, data: {object}}`. The stored snapshot is rendered in the caller's
 * API version, as the resource itself would have been answered at that moment.
 */

export type PresentationVersion = 'current' | 'legacy';

export function presentSnapshot(
  snapshot: ResourceSnapshot,
  version: PresentationVersion,
  at: Date = new Date(),
): object {
  switch (snapshot.kind) {
    case 'authorization': {
      const authorization = Authorization.rehydrate(snapshot.state);
      return version === 'legacy'
        ? presentLegacyAuthorization(authorization)
        : presentAuthorization(authorization, at);
    }
    case 'manual_handoff':
      return presentManualHandoff(ManualHandoff.rehydrate(snapshot.state), snapshot.authorization);
    case 'file':
      return presentFile(File.rehydrate(snapshot.state));
    case 'webhook_endpoint': {
      const endpoint = snapshot.endpoint;
      return {
        id: endpoint.id,
        url: endpoint.url,
        description: endpoint.description,
        enabledEvents: [...endpoint.enabledEvents],
        disabled: endpoint.disabled,
        apiVersion: endpoint.apiVersion,
        version: endpoint.version,
        createdAt: new Date(endpoint.createdAt).toISOString(),
        updatedAt: new Date(endpoint.updatedAt).toISOString(),
      };
    }
  }
}

export const presentEvent = (event: ResourceEvent, version: PresentationVersion) => ({
  id: event.id,
  type: event.type,
  createdAt: new Date(event.createdAt).toISOString(),
  authorizationId: event.authorizationId,
  data: { object: presentSnapshot(event.snapshot, version, new Date(event.createdAt)) },
});

export type PresentedEvent = ReturnType<typeof presentEvent>;
