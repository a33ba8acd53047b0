import type { DatabaseOutageTracker } from '../http/database-outage-tracker';
import type { Resource } from '../http/route-table';
import { ref } from '../openapi/openapi.components';
import { jsonResponse, TAGS } from '../openapi/openapi.operations';
import type { HealthController } from './health.controller';

/** The controller behind the probes, and the outage tracker a healthy answer ends. */
export interface HealthControllers {
  health: HealthController;
  outage: DatabaseOutageTracker;
}

/** `/health` and the probes: public, outside `/v1`. */
export const HEALTH_RESOURCE: Resource<HealthControllers> = {
  mounts: [{ path: '', tag: TAGS.health, operationIdSuffix: '' }],
  routes: {
    '/health': {
      get: {
        serve: async (c, req, res) => {
          await c.health.get(req, res);
          // A database that answers the health check ends an outage too (when no /v1 traffic would).
          if (res.statusCode === 200) c.outage.answered();
        },
        openapi: {
          operationId: 'getHealth',
          summary: 'Liveness and database reachability',
          access: 'public',
          responses: {
            200: jsonResponse('The service and its database are up.', ref('HealthStatus')),
            503: jsonResponse('The database cannot be reached.', ref('HealthStatus')),
          },
          errors: [],
        },
      },
    },
    '/livez': {
      get: {
        serve: async (c, req, res) => c.health.live(req, res),
        openapi: {
          operationId: 'getLiveness',
          summary: 'Liveness probe',
          description:
            'The process answers. Never touches the database: an outage is not a reason to restart.',
          access: 'public',
          responses: { 200: jsonResponse('The process is alive.', ref('Liveness')) },
          errors: [],
        },
      },
    },
    '/readyz': {
      get: {
        serve: (c, req, res) => c.health.ready(req, res),
        openapi: {
          operationId: 'getReadiness',
          summary: 'Readiness probe',
          description: 'The database is reachable and its schema is the one this release expects.',
          access: 'public',
          responses: {
            200: jsonResponse('Ready for traffic.', ref('Readiness')),
            503: jsonResponse('Not ready: see `checks` (with `Retry-After`).', ref('Readiness')),
          },
          errors: [],
        },
      },
    },
  },
};
