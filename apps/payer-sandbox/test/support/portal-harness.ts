import { createHash, randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { type PortalCase, type PortalCaseAttachment } from '@prior-auth/domain';
import {
  ChromiumBrowser,
  PlaywrightPayerPortal,
  SANDBOX_PAYER_DEMO_ACCOUNT,
  SandboxPayerSitePage,
  type PlaywrightPayerPortalOptions,
  type PortalCredentials,
} from '@prior-auth/payer-portal';
import { startPayerSandbox, type PayerSandboxOptions, type RunningPayerSandbox } from '../../src';

export const databaseUrl = (): string => {
  const url = process.env.PAYER_SANDBOX_TEST_DATABASE_URL;
  if (!url) throw new Error('PAYER_SANDBOX_TEST_DATABASE_URL is unset: is the Jest global setup configured?');
  return url;
};

/** One browser for a test file (set up in beforeAll, closed in afterAll). */
export const testBrowser = () =>
  new ChromiumBrowser({ executablePath: process.env.PAYER_SANDBOX_TEST_BROWSER });

export const startTestSandbox = (options: Partial<PayerSandboxOptions> = {}): Promise<RunningPayerSandbox> =>
  startPayerSandbox({
    databaseUrl: databaseUrl(),
    decisionDelayMs: 0,
    portalDownResponses: 1,
    // Files sign the demo account in from many browsers at once; one-time-code.spec.ts takes codes once.
    oneTimeCodes: 'reusable',
    ...options,
  });

/** A minimal valid PDF: what the website accepts as a document. */
export const PDF_BYTES = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

export function portalFor(
  sandbox: RunningPayerSandbox,
  browser: ChromiumBrowser,
  overrides: Partial<PlaywrightPayerPortalOptions> & {
    credentials?: PlaywrightPayerPortalOptions['credentials'];
  } = {},
  files: Map<string, Uint8Array> = new Map(),
): PlaywrightPayerPortal {
  return new PlaywrightPayerPortal({
    browser,
    site: new SandboxPayerSitePage(sandbox.url),
    credentials: async () => SANDBOX_PAYER_DEMO_ACCOUNT,
    readAttachment: async (attachment) => files.get(attachment.fileId) ?? PDF_BYTES,
    // Generous: a loaded machine slows the browser, and a slow run must not read as a portal fault. In a CI
    // pass beside the launcher's end-to-end files, 15 s for a page and 50 s for a run were not enough once.
    navigationTimeoutMs: 30_000,
    runTimeoutMs: 90_000,
    // Step screenshots cost a third of a run; the evidence test turns them on.
    stepScreenshots: false,
    ...overrides,
  });
}

export const credentials = (value: PortalCredentials) => async () => value;

export function attachment(
  documentType = 'clinical_notes',
  contentType = 'application/pdf',
): PortalCaseAttachment {
  const id = randomUUID();
  return {
    attachmentId: `att_${id}`,
    fileId: `file_${id}`,
    documentTypes: [documentType],
    label: 'Sleep study.pdf',
    contentType,
    storageKey: `blobs/${id}`,
  };
}

/** A sandbox case for a member ID, with a unique authorization id so cases run in parallel. */
export function portalCase(
  memberId: string,
  extra: { answers?: Record<string, string>; attachments?: PortalCaseAttachment[] } = {},
): PortalCase {
  const answers: Record<string, string> = {
    'patient.memberId': memberId,
    'patient.firstName': 'Ada',
    'patient.lastName': 'Lovelace',
    'patient.birthDate': '1970-05-01',
    'request.diagnosisCode': 'G47.33',
    'clinical.apneaHypopneaIndex': '32',
    ...extra.answers,
  };
  return {
    authorizationId: `auth_${randomUUID()}`,
    organizationId: 'org_portal_harness',
    environment: 'sandbox',
    routeId: 'route_sandbox_e0601',
    templateSelection: {
      payerId: 'payer_uhc',
      insuranceState: 'CA',
      serviceType: 'outpatient',
      serviceCode: 'E0601',
      serviceCodeSystem: 'hcpcs',
    },
    providerNpi: '1234567893',
    questionnaireResponse: {
      item: Object.entries(answers).map(([linkId, value]) => ({
        linkId,
        answer: [/^\d{4}-\d{2}-\d{2}$/.test(value) ? { valueDate: value } : { valueString: value }],
      })),
    },
    attachments: extra.attachments ?? [attachment()],
    portalAuthMode: 'automated',
    receipt: null,
  };
}

export const uniqueKey = (portal: PortalCase) => `${portal.authorizationId}:${Date.now().toString(36)}`;

/**
 * A website and one browser for a test file: started in beforeAll, closed in afterAll. Read the fields
 * inside tests only (they are set once beforeAll has run).
 */
export function useSandboxAndBrowser(options: Partial<PayerSandboxOptions> = {}): {
  sandbox: RunningPayerSandbox;
  browser: ChromiumBrowser;
} {
  const fixture = {} as { sandbox: RunningPayerSandbox; browser: ChromiumBrowser };
  beforeAll(async () => {
    fixture.browser = testBrowser();
    [fixture.sandbox] = await Promise.all([startTestSandbox(options), fixture.browser.ensureStarted()]);
  });
  afterAll(async () => {
    await fixture.browser?.close();
    await fixture.sandbox?.close();
  });
  return fixture;
}

/**
 * A website account of its own (`<prefix>.<uuid>`, the sandbox password and authenticator secret), so a test
 * that ends sessions or spends one-time codes touches no other test's sign-ins.
 */
export async function createOwnAccount(db: Client, prefix: string): Promise<PortalCredentials> {
  const account = {
    username: `${prefix}.${randomUUID()}`,
    password: 'Sandbox-Portal-2026!',
    totpSecret: 'KRSXG5CTMVRXEZLUKN2XAZLSONQW4ZDC',
  };
  await db.query(
    'INSERT INTO payer_sandbox.accounts (username, password_sha256, totp_secret, locked) VALUES ($1, $2, $3, false)',
    [
      account.username,
      createHash('sha256').update(account.password, 'utf8').digest('hex'),
      account.totpSecret,
    ],
  );
  return account;
}
