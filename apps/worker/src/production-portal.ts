import { PayerPortalError, type PayerPortal } from '@prior-auth/domain';
import {
  ChromiumBrowser,
  ConnectedPayerPortal,
  type LiveRunSessions,
  type PlaywrightPayerPortalOptions,
} from '@prior-auth/payer-portal';
import { TypeOrmPortalConnections, TypeOrmPortalCredentials } from '@prior-auth/persistence-postgres';
import { ConfigError, CredentialsCipher, SecretUnreadableError } from '@prior-auth/platform';
import { type DataSource } from 'typeorm';

export interface ProductionPortalOptions {
  dataSource: DataSource;
  /** The process's one browser, shared with the sandbox's portal (decision 0017). */
  browser: ChromiumBrowser;
  /** CREDENTIALS_KEY's cipher; null when it is not configured (an `automated` sign-in then fails clearly). */
  cipher: CredentialsCipher | null;
  readAttachment: PlaywrightPayerPortalOptions['readAttachment'];
  stepScreenshots?: boolean;
  runTimeoutMs?: number;
  /** Shows each portal run live (decision 0033). */
  liveSessions?: LiveRunSessions;
  /** Customers' portal sessions shared by every worker (decision 0044). */
  customerSessions?: PlaywrightPayerPortalOptions['customerSessions'];
  /** The link a `customer_login` review carries while the sign-in is held (decision 0046). */
  liveViewUrl?: PlaywrightPayerPortalOptions['liveViewUrl'];
}

/**
 * Production's payer portal (decision 0021): the payer's portal connection (base URL + page script) and the
 * organization's credentials, both read per portal run from PostgreSQL, the secrets opened only for the
 * sign-in. Credentials that cannot be opened (no key configured, another key, altered) fail like wrong ones:
 * retrying cannot help until an operator fixes the key or sets them again.
 */
export function createProductionPayerPortal(options: ProductionPortalOptions): PayerPortal {
  const connections = new TypeOrmPortalConnections(options.dataSource);
  const credentials = new TypeOrmPortalCredentials(options.dataSource, () => {
    if (options.cipher === null) throw new ConfigError(['CREDENTIALS_KEY is not configured on the worker']);
    return options.cipher;
  });
  return new ConnectedPayerPortal({
    browser: options.browser,
    readAttachment: options.readAttachment,
    connection: async (payerId) => {
      const found = await connections.find(payerId);
      return found && { baseUrl: found.baseUrl, pageScript: found.pageScript };
    },
    credentials: async (organizationId, payerId) => {
      try {
        return await credentials.signIn(organizationId, payerId);
      } catch (error) {
        if (!(error instanceof SecretUnreadableError) && !(error instanceof ConfigError)) throw error;
        const why =
          error instanceof ConfigError ? 'CREDENTIALS_KEY is not configured on the worker' : error.message;
        throw new PayerPortalError(
          'portal_credentials_invalid',
          `The stored portal credentials cannot be used: ${why}.`,
          { transient: false, details: { payerId, reason: 'credentials_unreadable' } },
        );
      }
    },
    ...(options.stepScreenshots === undefined ? {} : { stepScreenshots: options.stepScreenshots }),
    ...(options.runTimeoutMs === undefined ? {} : { runTimeoutMs: options.runTimeoutMs }),
    ...(options.liveSessions === undefined ? {} : { liveSessions: options.liveSessions }),
    ...(options.customerSessions === undefined ? {} : { customerSessions: options.customerSessions }),
    ...(options.liveViewUrl === undefined ? {} : { liveViewUrl: options.liveViewUrl }),
  });
}
