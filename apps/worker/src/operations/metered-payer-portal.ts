import { isPayerPortalError, type PayerPortal } from '@prior-auth/domain';
import type { Histogram } from 'prom-client';

type PortalOperation = keyof PayerPortal;

// Every method of the port: one added there and not here fails the type check.
const OPERATIONS = Object.keys({
  discover: true,
  validate: true,
  prepareSubmission: true,
  submit: true,
  findSubmission: true,
  pollDecision: true,
} satisfies Record<PortalOperation, true>) as PortalOperation[];

/** How a portal run ended: `ok`, a payer failure that is retried or final, or any other error. */
export function portalOutcome(error: unknown): string {
  if (!isPayerPortalError(error)) return 'error';
  return error.transient ? 'transient_failure' : 'permanent_failure';
}

/**
 * A payer portal whose every run is timed into `histogram` by environment, operation and outcome
 * (docs/decisions/0034-operability.md); what the portal answers or throws passes through unchanged.
 */
export function meteredPayerPortal(
  portal: PayerPortal,
  environment: string,
  histogram: Histogram<'environment' | 'operation' | 'outcome'>,
): PayerPortal {
  const metered = {} as Record<PortalOperation, unknown>;
  for (const operation of OPERATIONS) {
    const run = portal[operation].bind(portal) as (...args: unknown[]) => Promise<unknown>;
    metered[operation] = async (...args: unknown[]) => {
      const end = histogram.startTimer({ environment, operation });
      try {
        const result = await run(...args);
        end({ outcome: 'ok' });
        return result;
      } catch (error) {
        end({ outcome: portalOutcome(error) });
        throw error;
      }
    };
  }
  return metered as unknown as PayerPortal;
}
