import {
  PayerPortalError,
  type DecisionPoll,
  type FoundSubmission,
  type PayerPortal,
  type PortalCase,
  type PortalDiscovery,
  type PortalValidation,
  type PreparedSubmission,
  type SubmissionLookup,
  type SubmitResult,
} from '@prior-auth/domain';
import { type ChromiumBrowser } from './browser/chromium-browser';
import { type LiveRunSessions } from './screencast-live-sessions';
import { PlaywrightPayerPortal, type PlaywrightPayerPortalOptions } from './playwright-payer-portal';
import { pageScriptFor } from './sites/page-scripts';
import { type PortalCredentials } from './sites/payer-site.page';

/** A payer's portal connection: where it answers and the name of the page script that drives it. */
export interface PortalConnectionTarget {
  baseUrl: string;
  pageScript: string;
}

/** An organization's stored sign-in for a payer's portal; the TOTP secret is optional. */
export interface StoredPortalSignIn {
  username: string;
  password: string;
  totpSecret: string | null;
}

export interface ConnectedPayerPortalOptions {
  /** The process's one browser (launched on first use). */
  browser: ChromiumBrowser;
  /** The payer's configured connection, or null when it has none. */
  connection: (payerId: string) => Promise<PortalConnectionTarget | null>;
  /** The organization's opened credentials for the payer, or null when none are stored. */
  credentials: (organizationId: string, payerId: string) => Promise<StoredPortalSignIn | null>;
  readAttachment: PlaywrightPayerPortalOptions['readAttachment'];
  channel?: string;
  runTimeoutMs?: number;
  /** Shows each portal run live (decision 0033); runs are not shown when absent. */
  liveSessions?: LiveRunSessions;
  stepScreenshots?: boolean;
  /** Customers' sessions shared by the cluster's workers (decision 0044); this process's memory when absent. */
  customerSessions?: PlaywrightPayerPortalOptions['customerSessions'];
  /** The link a `customer_login` review carries while the sign-in is held (decision 0046); none when absent. */
  liveViewUrl?: PlaywrightPayerPortalOptions['liveViewUrl'];
}

/** Connections whose adapters (and kept sessions) a process holds at once; the oldest goes first. */
const MAX_CONNECTIONS = 64;

const permanent = (code: string, message: string, details: Record<string, unknown>) =>
  new PayerPortalError(code, message, { transient: false, details });

/**
 * Production's payer portal (decision 0021): per case, the payer's configured connection picks the page
 * script and the base URL, and the organization's stored credentials sign in. Both are read at every call, so
 * a change made with the admin CLI applies to the next portal run; one removed since the case was created is
 * a clear permanent failure, not a crash.
 */
export class ConnectedPayerPortal implements PayerPortal {
  /**
   * One adapter per connection (page script + base URL), kept so its signed-in sessions serve later runs:
   * a fresh adapter per call signed in on every call. Bounded: connections are few, one per payer.
   */
  private readonly portals = new Map<string, PlaywrightPayerPortal>();

  constructor(private readonly options: ConnectedPayerPortalOptions) {}

  async discover(portalCase: PortalCase): Promise<PortalDiscovery> {
    return (await this.portalFor(portalCase)).discover(portalCase);
  }

  async validate(portalCase: PortalCase): Promise<PortalValidation> {
    return (await this.portalFor(portalCase)).validate(portalCase);
  }

  async prepareSubmission(portalCase: PortalCase): Promise<PreparedSubmission> {
    return (await this.portalFor(portalCase)).prepareSubmission(portalCase);
  }

  async submit(portalCase: PortalCase, options: { idempotencyKey: string }): Promise<SubmitResult> {
    return (await this.portalFor(portalCase)).submit(portalCase, options);
  }

  async findSubmission(portalCase: PortalCase, lookup: SubmissionLookup): Promise<FoundSubmission | null> {
    return (await this.portalFor(portalCase)).findSubmission(portalCase, lookup);
  }

  async pollDecision(portalCase: PortalCase): Promise<DecisionPoll> {
    return (await this.portalFor(portalCase)).pollDecision(portalCase);
  }

  private async portalFor(portalCase: PortalCase): Promise<PayerPortal> {
    const payerId = portalCase.templateSelection.payerId;
    const connection = await this.options.connection(payerId);
    if (connection === null) {
      throw permanent('payer_portal_unavailable', "The payer's portal is not connected to the service.", {
        payerId,
      });
    }
    const site = pageScriptFor(connection.pageScript, connection.baseUrl);
    if (site === null) {
      throw permanent(
        'payer_portal_unavailable',
        `The payer's portal connection names an unknown page script (${connection.pageScript}).`,
        { payerId },
      );
    }
    const key = `${connection.pageScript}\u0000${connection.baseUrl}`;
    const kept = this.portals.get(key);
    if (kept) return kept;
    const portal = new PlaywrightPayerPortal({
      browser: this.options.browser,
      site,
      credentials: (c) => this.signIn(c),
      readAttachment: this.options.readAttachment,
      ...(this.options.channel === undefined ? {} : { channel: this.options.channel }),
      ...(this.options.runTimeoutMs === undefined ? {} : { runTimeoutMs: this.options.runTimeoutMs }),
      ...(this.options.stepScreenshots === undefined
        ? {}
        : { stepScreenshots: this.options.stepScreenshots }),
      ...(this.options.liveSessions === undefined ? {} : { liveSessions: this.options.liveSessions }),
      ...(this.options.customerSessions === undefined
        ? {}
        : { customerSessions: this.options.customerSessions }),
      ...(this.options.liveViewUrl === undefined ? {} : { liveViewUrl: this.options.liveViewUrl }),
    });
    if (this.portals.size >= MAX_CONNECTIONS) this.portals.delete(this.portals.keys().next().value!);
    this.portals.set(key, portal);
    return portal;
  }

  private async signIn(portalCase: PortalCase): Promise<PortalCredentials> {
    const payerId = portalCase.templateSelection.payerId;
    const stored = await this.options.credentials(portalCase.organizationId, payerId);
    // Never asked for a `customer_login` case: the customer signs in on the run's kept page (decision 0039).
    if (stored === null) {
      throw permanent(
        'portal_credentials_invalid',
        "No credentials for the payer's portal are stored for the organization.",
        { payerId, reason: 'credentials_missing' },
      );
    }
    // No stored authenticator: the page script reports a portal that asks for a code as an MFA issue.
    return { username: stored.username, password: stored.password, totpSecret: stored.totpSecret ?? '' };
  }
}
