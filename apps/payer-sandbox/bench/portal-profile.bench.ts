/*
 * Where a sandbox case's time goes in the browser (docs/performance.md): runs cases one after another through
 * the adapter as the worker calls it (discover, validate, submit, two decision polls), and prints the time of
 * each portal call and of each page-script step, plus context creation (screenshots: compare a run with
 * PROFILE_STEP_SCREENSHOTS=0).
 *
 * `pnpm --filter @prior-auth/payer-sandbox portal-profile` (dependencies built) against DATABASE_URL's server, where it
 * creates a fresh database and drops it after.
 * PROFILE_CASES (default 8) sets the number of cases; PROFILE_STEP_SCREENSHOTS=0 turns step screenshots off;
 * PROFILE_KEEP_SESSIONS=0 signs in on every call, as before sessions were kept.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type PortalCase } from '@prior-auth/domain';
import {
  ChromiumBrowser,
  PlaywrightPayerPortal,
  SANDBOX_PAYER_DEMO_ACCOUNT,
  SandboxPayerSitePage,
} from '@prior-auth/payer-portal';
import { Client } from 'pg';
import { startPayerSandbox } from '../src';

const CASES = Number(process.env.PROFILE_CASES ?? 8);
const STEP_SCREENSHOTS = process.env.PROFILE_STEP_SCREENSHOTS !== '0';
const KEEP_SESSIONS = process.env.PROFILE_KEEP_SESSIONS !== '0';
const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

const timings = new Map<string, number[]>();
const record = (name: string, ms: number) => timings.set(name, [...(timings.get(name) ?? []), ms]);
async function timed<T>(name: string, body: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await body();
  } finally {
    record(name, performance.now() - started);
  }
}

/** Times every method of an object under `prefix` (the page script, the browser). */
function instrument<T extends object>(target: T, prefix: string): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        timed(`${prefix}.${String(property)}`, async () =>
          (value as (...a: unknown[]) => Promise<unknown>).apply(object, args),
        );
    },
  });
}

function portalCase(memberId: string): PortalCase {
  const answers: Record<string, string> = {
    'patient.memberId': memberId,
    'patient.birthDate': '1970-05-01',
    'request.diagnosisCode': 'G47.33',
    'clinical.apneaHypopneaIndex': '32',
  };
  const id = randomUUID();
  return {
    authorizationId: `auth_${id}`,
    organizationId: `org_${id}`,
    environment: 'sandbox',
    routeId: 'route_profile',
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
    attachments: [
      {
        attachmentId: `att_${id}`,
        fileId: `file_${id}`,
        documentTypes: ['clinical_notes'],
        label: 'Sleep study.pdf',
        contentType: 'application/pdf',
        storageKey: `blobs/${id}`,
      },
    ],
    portalAuthMode: 'automated',
    receipt: null,
  };
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('set DATABASE_URL (a server where a throwaway database may be created)');
  const name = `portal_profile_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const sandbox = await startPayerSandbox({ databaseUrl: url.toString(), decisionDelayMs: 0 });
  const browser = new ChromiumBrowser({ executablePath: process.env.BROWSER_EXECUTABLE_PATH || undefined });
  try {
    await browser.ensureStarted();
    const portal = new PlaywrightPayerPortal({
      browser: instrument(browser, 'browser'),
      site: instrument(new SandboxPayerSitePage(sandbox.url), 'site'),
      credentials: async () => SANDBOX_PAYER_DEMO_ACCOUNT,
      readAttachment: async () => PDF,
      stepScreenshots: STEP_SCREENSHOTS,
      ...(KEEP_SESSIONS ? {} : { idleSessionsPerAccount: 0 }),
    });
    // One warm-up case: the first page loads compile the website's templates and warm the browser.
    for (let i = 0; i <= CASES; i += 1) {
      if (i === 1) timings.clear();
      const theCase = portalCase('SBX-APPROVED');
      await timed('case', async () => {
        await timed('call.discover', () => portal.discover(theCase));
        await timed('call.validate', () => portal.validate(theCase));
        const submitted = await timed('call.submit', () =>
          portal.submit(theCase, { idempotencyKey: `${theCase.authorizationId}:submit` }),
        );
        if (!('receipt' in submitted)) throw new Error('the profile case was not received');
        const received = { ...theCase, receipt: submitted.receipt };
        await timed('call.pollDecision', () => portal.pollDecision(received));
        await timed('call.pollDecision', () => portal.pollDecision(received));
      });
    }
  } finally {
    await browser.close();
    await sandbox.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
  console.log(
    `\nPortal profile: ${CASES} cases, step screenshots ${STEP_SCREENSHOTS ? 'on' : 'off'}, sessions ${KEEP_SESSIONS ? 'kept' : 'not kept'} (ms per call)\n`,
  );
  console.log('| what | calls | mean ms | total ms per case |');
  console.log('|---|--:|--:|--:|');
  for (const [what, list] of [...timings].sort((a, b) => a[0].localeCompare(b[0]))) {
    const total = list.reduce((sum, ms) => sum + ms, 0);
    console.log(
      `| ${what} | ${list.length} | ${(total / list.length).toFixed(0)} | ${(total / CASES).toFixed(0)} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
