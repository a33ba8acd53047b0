import { type Authorization } from '../authorization/authorization.aggregate';
import {
  type AuthorizationStatus,
  type FinalSubmissionPolicy,
  type TemplateSelection,
} from '../authorization/authorization.types';
import {
  clinicalNotesRequirement,
  completeAnswers,
  testPayer,
  testQuestionnaire,
} from '../authorization/testing/authorization.fixtures';
import { type File } from '../file/file.aggregate';
import { type DomainPorts } from '../ports';
import { type Route } from '../ports/payer-catalog.port';
import { type TenantScope } from '../shared/scope';
import { AttachFileUseCase } from '../use-cases/attach-file.use-case';
import { CompleteFileUseCase } from '../use-cases/complete-file.use-case';
import { ConfirmAuthorizationUseCase } from '../use-cases/confirm-authorization.use-case';
import {
  CreateAuthorizationUseCase,
  type CreateAuthorizationCommand,
} from '../use-cases/create-authorization.use-case';
import { CreateFileUseCase } from '../use-cases/create-file.use-case';
import { ProcessAuthorizationUseCase } from '../use-cases/process-authorization.use-case';
import { type PipelineSettings } from '../use-cases/support/worker-jobs';
import { FakePayerCatalog, FakeProviderRegistry } from './fake-catalog';
import { FakeGrantIssuer } from './fake-grant-issuer';
import { FakePortalAccess } from './fake-portal-access';
import { FakeRuntimeSessions } from './fake-runtime-sessions';
import { FixedClock } from './fixed-clock';
import { InMemoryBlobStore } from './in-memory-blob-store';
import { InMemoryUnitOfWork } from './in-memory-unit-of-work';
import { ScriptedPayerPortal } from './scripted-payer-portal';
import { SequentialIdGenerator } from './sequential-id-generator';

export const SCOPE: TenantScope = { organizationId: 'org_1', environment: 'sandbox' };
/** Same organization, other environment: must never see SCOPE's data. */
export const OTHER_SCOPE: TenantScope = { organizationId: 'org_1', environment: 'production' };
export const NPI = '1234567893';

export const SELECTION: TemplateSelection = {
  payerId: 'payer_uhc',
  insuranceState: 'CA',
  serviceType: 'outpatient',
  serviceCode: '70553',
  serviceCodeSystem: 'cpt',
};

export const testRoute = (overrides: Partial<Route> = {}): Route => ({
  id: 'route_uhc_ca_outpatient',
  templateSelection: { ...SELECTION },
  portalAuthModes: ['automated', 'customer_login'],
  questionnaire: testQuestionnaire(),
  documentRequirements: [clinicalNotesRequirement()],
  ...overrides,
});

export const PDF_BYTES = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x37, 0x0a, 0x25]);

export const TEST_SETTINGS: PipelineSettings = {
  decisionPollIntervalMs: 5_000,
  handoffReconcileRetryMs: 30_000,
  handoffReconcileMaxAttempts: 2,
  givenUpRetryMs: 60_000,
};

export type Harness = ReturnType<typeof createHarness>;

/** All ports as in-memory fakes, plus shortcuts that reach a state through the use cases themselves. */
export function createHarness() {
  const grantIssuer = new FakeGrantIssuer();
  const unitOfWork = new InMemoryUnitOfWork(grantIssuer);
  const clock = new FixedClock();
  const ids = new SequentialIdGenerator();
  const providerRegistry = new FakeProviderRegistry();
  providerRegistry.register(SCOPE, NPI);
  const payerCatalog = new FakePayerCatalog();
  payerCatalog.payers.set('payer_uhc', testPayer());
  payerCatalog.routes.push(testRoute());
  const payerPortal = new ScriptedPayerPortal();
  // Production routes are served here unless a test takes the connection or credentials away (decision 0021).
  const portalAccess = new FakePortalAccess()
    .connect('payer_uhc')
    .storeCredentials(SCOPE.organizationId, 'payer_uhc');
  const blobStore = new InMemoryBlobStore();
  const runtimeSessions = new FakeRuntimeSessions(clock);

  const deps: DomainPorts & { settings: PipelineSettings } = {
    unitOfWork,
    clock,
    ids,
    providerRegistry,
    payerCatalog,
    payerPortal,
    portalAccess,
    blobStore,
    grantIssuer,
    runtimeSessions,
    settings: TEST_SETTINGS,
  };

  const createAuthorization = (
    overrides: Partial<CreateAuthorizationCommand> = {},
    scope: TenantScope = SCOPE,
  ): Promise<Authorization> =>
    new CreateAuthorizationUseCase(deps).execute(scope, {
      providerNpi: NPI,
      templateSelection: { ...SELECTION },
      policy: { finalSubmission: 'automatic' },
      questionnaireResponse: { item: completeAnswers() },
      ...overrides,
    });

  const uploadFile = async (scope: TenantScope = SCOPE, bytes: Uint8Array = PDF_BYTES): Promise<File> => {
    const { file } = await new CreateFileUseCase(deps).execute(scope, {
      fileName: 'notes.pdf',
      contentType: 'application/pdf',
      sizeBytes: bytes.length,
      purpose: 'authorization_attachment',
    });
    blobStore.upload(file.storageKey, bytes);
    return file;
  };

  const readyFile = async (scope: TenantScope = SCOPE): Promise<File> => {
    const file = await uploadFile(scope);
    return new CompleteFileUseCase(deps).execute(scope, { fileId: file.id });
  };

  /** Drives a case into `status` through the use cases (automatic policy unless told otherwise). */
  const authorizationIn = async (
    status: Extract<
      AuthorizationStatus,
      'requires_input' | 'requires_confirmation' | 'processing' | 'requires_action' | 'waiting_on_payer'
    >,
    policy: FinalSubmissionPolicy = 'automatic',
  ): Promise<Authorization> => {
    let authorization = await createAuthorization({ policy: { finalSubmission: policy } });
    if (status === 'requires_input') return authorization;
    const file = await readyFile();
    ({ authorization } = await new AttachFileUseCase(deps).execute(SCOPE, {
      authorizationId: authorization.id,
      expectedVersion: authorization.version,
      fileId: file.id,
      documentTypes: ['clinical_notes'],
      description: null,
    }));
    if (status === 'requires_confirmation') return authorization;
    authorization = await new ConfirmAuthorizationUseCase(deps).execute(SCOPE, {
      authorizationId: authorization.id,
      expectedVersion: authorization.version,
      nextActionId: authorization.nextAction?.id,
    });
    if (status === 'processing') return authorization;
    if (status === 'requires_action') {
      payerPortal.reply('submit', {
        needsHuman: { reason: 'captcha', description: 'Solve the portal CAPTCHA and submit.' },
      });
    }
    await new ProcessAuthorizationUseCase(deps).execute(SCOPE, { authorizationId: authorization.id });
    return load(authorization.id);
  };

  const load = async (authorizationId: string, scope: TenantScope = SCOPE): Promise<Authorization> => {
    const found = await unitOfWork.run(scope, (tx) => tx.authorizations.findById(authorizationId));
    if (found === null) throw new Error(`No authorization ${authorizationId}`);
    return found;
  };

  return {
    deps,
    unitOfWork,
    clock,
    ids,
    providerRegistry,
    payerCatalog,
    payerPortal,
    portalAccess,
    blobStore,
    grantIssuer,
    runtimeSessions,
    createAuthorization,
    uploadFile,
    readyFile,
    authorizationIn,
    load,
    jobs: (scope: TenantScope = SCOPE) => unitOfWork.tenant(scope).jobs,
    domainEvents: (scope: TenantScope = SCOPE) => unitOfWork.tenant(scope).domainEvents,
  };
}
