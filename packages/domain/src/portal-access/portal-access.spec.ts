import { type PortalAuthMode } from '../authorization/authorization.types';
import { PayerPortalError } from '../ports/payer-portal.port';
import { type PortalAccessFacts } from '../ports/portal-access.port';
import { type Environment } from '../shared/scope';
import { createHarness, NPI, OTHER_SCOPE, SCOPE, SELECTION, type Harness } from '../testing';
import { ConfirmAuthorizationUseCase } from '../use-cases/confirm-authorization.use-case';
import { ProcessAuthorizationUseCase } from '../use-cases/process-authorization.use-case';
import { signInNeedsHuman } from './portal-sign-in';
import { modeServiceability, routeServiceability } from './route-serviceability';

const none: PortalAccessFacts = { connection: false, credentials: false };
const connected: PortalAccessFacts = { connection: true, credentials: false };
const full: PortalAccessFacts = { connection: true, credentials: true };
const credentialsOnly: PortalAccessFacts = { connection: false, credentials: true };

describe('modeServiceability (decision 0030)', () => {
  it.each<[Environment, PortalAuthMode, PortalAccessFacts | null, string | null]>([
    ['sandbox', 'automated', null, null],
    ['sandbox', 'customer_login', none, null],
    ['production', 'automated', null, 'portal_connection_missing'],
    ['production', 'automated', none, 'portal_connection_missing'],
    ['production', 'automated', credentialsOnly, 'portal_connection_missing'],
    ['production', 'automated', connected, 'portal_credentials_missing'],
    ['production', 'automated', full, null],
    ['production', 'customer_login', none, 'portal_connection_missing'],
    ['production', 'customer_login', connected, null],
  ])('%s %s with %j → %s', (environment, mode, facts, reason) => {
    const verdict = modeServiceability(environment, mode, facts);
    expect(verdict.serviceable ? null : verdict.reason).toBe(reason);
  });
});

describe('routeServiceability', () => {
  it.each<[PortalAuthMode[], PortalAccessFacts, boolean, string | null, PortalAuthMode[]]>([
    [['automated'], full, true, null, ['automated']],
    [['automated'], connected, false, 'portal_credentials_missing', []],
    [['automated', 'customer_login'], connected, true, null, ['customer_login']],
    [['automated', 'customer_login'], none, false, 'portal_connection_missing', []],
    [['customer_login'], connected, true, null, ['customer_login']],
  ])('modes %j with %j → serviceable %s (%s)', (modes, facts, serviceable, reason, usable) => {
    expect(routeServiceability('production', modes, facts)).toEqual({
      serviceable,
      reason,
      portalAuthModes: usable,
    });
  });

  it('the sandbox serves every mode whatever is configured', () => {
    expect(routeServiceability('sandbox', ['automated', 'customer_login'], none)).toEqual({
      serviceable: true,
      reason: null,
      portalAuthModes: ['automated', 'customer_login'],
    });
  });
});

describe('signInNeedsHuman', () => {
  it.each<[string, boolean, boolean]>([
    ['portal_account_locked', false, true],
    ['credential_or_mfa_issue', false, true],
    ['customer_login_required', false, true],
    ['portal_credentials_invalid', false, false],
    ['portal_credentials_invalid', true, true],
    ['payer_rejected_submission', true, false],
  ])('%s (boundary crossed: %s) → %s', (code, crossed, expected) => {
    expect(signInNeedsHuman(code, crossed)).toBe(expected);
  });
});

describe('creating a production case', () => {
  let h: Harness;
  beforeEach(() => {
    h = createHarness();
    h.providerRegistry.register(OTHER_SCOPE, NPI);
  });
  const create = (portalAuthMode?: PortalAuthMode) =>
    h.createAuthorization(portalAuthMode ? { portalAuthMode } : {}, OTHER_SCOPE);

  it('is served when the payer is connected and the organization has credentials', async () => {
    expect((await create()).toState().portalAuthMode).toBe('automated');
  });

  it('without a portal connection → unsupported_template_selection naming the reason', async () => {
    h.portalAccess.connectedPayers.clear();
    await expect(create()).rejects.toMatchObject({
      code: 'unsupported_template_selection',
      details: { reason: 'portal_connection_missing' },
    });
  });

  it('without credentials, automated is refused and the default falls back to customer_login', async () => {
    h.portalAccess.credentials.clear();
    await expect(create('automated')).rejects.toMatchObject({
      code: 'unsupported_template_selection',
      details: { reason: 'portal_credentials_missing', portalAuthMode: 'automated' },
    });
    expect((await create()).toState().portalAuthMode).toBe('customer_login');
  });

  it('without credentials on an automated-only route → unsupported_template_selection', async () => {
    h.portalAccess.credentials.clear();
    h.payerCatalog.routes[0]!.portalAuthModes = ['automated'];
    await expect(create()).rejects.toMatchObject({
      code: 'unsupported_template_selection',
      details: { reason: 'portal_credentials_missing' },
    });
  });

  it('the sandbox needs neither', async () => {
    h.portalAccess.connectedPayers.clear();
    h.portalAccess.credentials.clear();
    expect((await h.createAuthorization({ templateSelection: { ...SELECTION } }, SCOPE)).status).toBe(
      'requires_input',
    );
  });
});

describe('sign-in failures in the pipeline (decision 0021)', () => {
  let h: Harness;
  let process: ProcessAuthorizationUseCase;
  beforeEach(() => {
    h = createHarness();
    process = new ProcessAuthorizationUseCase(h.deps);
  });
  const signInError = (code: string) =>
    new PayerPortalError(code, `sign-in refused: ${code}`, { transient: false });

  it.each(['portal_account_locked', 'credential_or_mfa_issue'])(
    '%s opens complete_payer_interaction for a manual handoff',
    async (code) => {
      const processing = await h.authorizationIn('processing');
      h.payerPortal.fail('discover', signInError(code));
      expect(await process.execute(SCOPE, { authorizationId: processing.id })).toBe(
        'manual_interaction_required',
      );
      const stored = await h.load(processing.id);
      expect(stored.status).toBe('requires_action');
      expect(stored.nextAction).toMatchObject({
        type: 'complete_payer_interaction',
        resolution: { kind: 'manual_handoff', reason: code },
      });
    },
  );

  it('wrong credentials before the final boundary fail the case with portal_credentials_invalid', async () => {
    const processing = await h.authorizationIn('processing');
    h.payerPortal.fail('discover', signInError('portal_credentials_invalid'));
    expect(await process.execute(SCOPE, { authorizationId: processing.id })).toBe('failed');
    const stored = await h.load(processing.id);
    expect(stored.toState().outcome).toBe('failed');
    expect(stored.toState().failure).toMatchObject({ code: 'portal_credentials_invalid' });
  });

  it('wrong credentials after the approval go to a human: the payer may already hold the submission', async () => {
    const processing = await h.authorizationIn('processing', 'requires_confirmation');
    await process.execute(SCOPE, { authorizationId: processing.id });
    const current = await h.load(processing.id);
    await new ConfirmAuthorizationUseCase(h.deps).execute(SCOPE, {
      authorizationId: processing.id,
      expectedVersion: current.version,
      nextActionId: current.nextAction?.id,
    });
    h.payerPortal.fail('findSubmission', signInError('portal_credentials_invalid'));
    expect(await process.execute(SCOPE, { authorizationId: processing.id })).toBe(
      'manual_interaction_required',
    );
    expect((await h.load(processing.id)).nextAction).toMatchObject({
      type: 'complete_payer_interaction',
    });
  });
});
