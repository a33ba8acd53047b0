import { startTracing } from '@prior-auth/platform';

/**
 * Tracing, when the OTEL_* variables ask for it (docs/decisions/0034-operability.md). Imported by main.ts before
 * anything else that loads http, express or pg, which the instrumentations patch as they load.
 */
export const tracing = startTracing('prior-auth-api');
