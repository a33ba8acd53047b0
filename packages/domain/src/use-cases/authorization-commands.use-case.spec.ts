import { type TransactionalPorts } from '../ports/unit-of-work.port';
import { DomainError } from '../shared/domain-error';
import { type TenantScope } from '../shared/scope';
import { createHarness, NPI, OTHER_SCOPE, SCOPE, SELECTION, testRoute, type Harness } from '../testing';
import { AttachFileUseCase } from './attach-file.use-case';
import { CancelAuthorizationUseCase } from './cancel-authorization.use-case';
import { ConfirmAuthorizationUseCase } from './confirm-authorization.use-case';
import { CreateManualHandoffUseCase } from './create-manual-handoff.use-case';
import { DetachAttachmentUseCase } from './detach-attachment.use-case';
import { GetAuthorizationUseCase } from './get-authorization.use-case';
import { ListAuthorizationsUseCase } from './list-authorizations.use-case';
import { PatchAnswersUseCase } from './patch-answers.use-case';

/** Resolves to the DomainError code a promise rejects with. */
const codeOf = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  throw new Error('expected a DomainError');
};

let h: Harness;
beforeEach(() => {
  h = createHarness();
});

describe('CreateAuthorizationUseCase', () => {
  it('creates a case on the route at version 1, saves it with its events, and enqueues nothing', async () => {
    const authorization = await h.createAuthorization();
    expect(authorization.version).toBe(1);
    expect(authorization.status).toBe('requires_input');
    expect(authorization.requirements.documents.map((d) => d.type)).toEqual(['clinical_notes']);
    const state = (await h.load(authorization.id)).toState();
    expect(state).toMatchObject({
      organizationId: 'org_1',
      environment: 'sandbox',
      routeId: 'route_uhc_ca_outpatient',
      portalAuthMode: 'automated',
      providerNpi: NPI,
      payer: { id: 'payer_uhc', displayName: 'UnitedHealthcare' },
    });
    expect(h.jobs()).toEqual([]);
    expect(h.domainEvents().map((e) => e.type)).toContain('authorization.created');
    expect(h.domainEvents()[0]).toMatchObject({
      aggregateType: 'authorization',
      aggregateId: authorization.id,
      organizationId: 'org_1',
      environment: 'sandbox',
    });
    expect(h.domainEvents()[0]?.payload).not.toHaveProperty('organizationId');
  });

  it('applies the template defaults to the initial answers', async () => {
    const route = testRoute();
    const notes = route.questionnaire.groups[1]!.items[1]!;
    notes.defaultValue = { valueString: 'Routine follow-up' };
    h.payerCatalog.routes.splice(0, 1, route);
    const authorization = await h.createAuthorization();
    expect(authorization.questionnaireResponse.item).toContainEqual({
      linkId: 'request.notes',
      answer: [{ valueString: 'Routine follow-up' }],
    });
  });

  it('honours a supported portalAuthMode and falls back when the route cannot automate', async () => {
    expect((await h.createAuthorization({ portalAuthMode: 'customer_login' })).toState().portalAuthMode).toBe(
      'customer_login',
    );
    h.payerCatalog.routes.splice(0, 1, testRoute({ portalAuthModes: ['customer_login'] }));
    expect((await h.createAuthorization()).toState().portalAuthMode).toBe('customer_login');
  });

  it.each<[string, (h: Harness) => Promise<unknown>]>([
    ['provider_not_found', (x) => x.createAuthorization({ providerNpi: '1245319599' })],
    // Registered in sandbox only: NPIs are scoped to (organization, environment).
    ['provider_not_found', (x) => x.createAuthorization({}, OTHER_SCOPE)],
    [
      'payer_not_found',
      (x) => x.createAuthorization({ templateSelection: { ...SELECTION, payerId: 'payer_nope' } }),
    ],
    [
      'unsupported_template_selection',
      (x) => x.createAuthorization({ templateSelection: { ...SELECTION, serviceCode: '99999' } }),
    ],
    [
      'portal_auth_mode_unsupported',
      (x) => {
        x.payerCatalog.routes.splice(0, 1, testRoute({ portalAuthModes: ['automated'] }));
        return x.createAuthorization({ portalAuthMode: 'customer_login' });
      },
    ],
    ['final_submission_policy_required', (x) => x.createAuthorization({ policy: {} as never })],
  ])('refuses with %s and saves nothing', async (code, act) => {
    expect(await codeOf(act(h))).toBe(code);
    expect(h.unitOfWork.commits).toBe(0);
  });
});

describe('GetAuthorizationUseCase / ListAuthorizationsUseCase', () => {
  it('gets an authorization of the tenant and hides it from every other tenant', async () => {
    const created = await h.createAuthorization();
    const get = new GetAuthorizationUseCase(h.deps);
    expect((await get.execute(SCOPE, { authorizationId: created.id })).id).toBe(created.id);
    expect(await codeOf(get.execute(OTHER_SCOPE, { authorizationId: created.id }))).toBe(
      'authorization_not_found',
    );
    expect(await codeOf(get.execute(SCOPE, { authorizationId: 'auth_404' }))).toBe('authorization_not_found');
  });

  it('answers only "unchanged" for the version the reader holds, the authorization for any other', async () => {
    const created = await h.createAuthorization();
    const get = new GetAuthorizationUseCase(h.deps);
    expect(await get.executeIfChanged(SCOPE, { authorizationId: created.id, knownVersion: 1 })).toEqual({
      unchanged: true,
      id: created.id,
      version: 1,
    });
    const stale = await get.executeIfChanged(SCOPE, { authorizationId: created.id, knownVersion: 0 });
    expect(stale).toMatchObject({ id: created.id, version: 1 });
    expect('unchanged' in stale).toBe(false);
    expect(
      await codeOf(get.executeIfChanged(OTHER_SCOPE, { authorizationId: created.id, knownVersion: 1 })),
    ).toBe('authorization_not_found');
  });

  it('lists newest first with a cursor and a status filter', async () => {
    const first = await h.createAuthorization();
    h.clock.advance(1000);
    const second = await h.authorizationIn('requires_confirmation');
    h.clock.advance(1000);
    const third = await h.createAuthorization();
    const list = new ListAuthorizationsUseCase(h.deps);

    const page1 = await list.execute(SCOPE, { limit: 2 });
    expect(page1.items.map((a) => a.id)).toEqual([third.id, second.id]);
    expect(page1.nextCursor).not.toBeNull();
    const page2 = await list.execute(SCOPE, { limit: 2, cursor: page1.nextCursor! });
    expect(page2).toMatchObject({ items: [expect.objectContaining({ id: first.id })], nextCursor: null });

    const filtered = await list.execute(SCOPE, { limit: 10, status: 'requires_confirmation' });
    expect(filtered.items.map((a) => a.id)).toEqual([second.id]);
    expect((await list.execute(OTHER_SCOPE, { limit: 10 })).items).toEqual([]);
  });

  it('lists only "unchanged" for the versions the reader holds, and loads the rest', async () => {
    const first = await h.createAuthorization();
    h.clock.advance(1000);
    const second = await h.authorizationIn('requires_confirmation');
    h.clock.advance(1000);
    const third = await h.createAuthorization();
    const known = new Map([
      [first.id, 1],
      [second.id, 0],
    ]);
    const asked: string[] = [];
    const list = new ListAuthorizationsUseCase(h.deps);

    const page = await list.executeIfChanged(SCOPE, { limit: 2 }, (id) => {
      asked.push(id);
      return known.get(id);
    });
    expect(asked).toEqual([third.id, second.id]);
    expect(page.items.map((item) => ['unchanged' in item, item.id])).toEqual([
      [false, third.id],
      [false, second.id],
    ]);
    expect(page.items[1]).toMatchObject({ status: 'requires_confirmation', version: second.version });

    const next = await list.executeIfChanged(SCOPE, { limit: 2, cursor: page.nextCursor! }, (id) =>
      known.get(id),
    );
    expect(next).toEqual({ items: [{ unchanged: true, id: first.id, version: 1 }], nextCursor: null });
    const filtered = await list.executeIfChanged(
      SCOPE,
      { limit: 10, status: 'requires_confirmation' },
      () => 0,
    );
    expect(filtered.items.map((item) => item.id)).toEqual([second.id]);
    expect((await list.executeIfChanged(OTHER_SCOPE, { limit: 10 }, () => undefined)).items).toEqual([]);
  });

  it('reads the page again whole when a case it loads moved on after the list was read', async () => {
    const first = await h.createAuthorization();
    h.clock.advance(1000);
    const second = await h.createAuthorization();
    // Between the list of versions and the load, the second case is answered and leaves `requires_input`.
    const deps = {
      ...h.deps,
      unitOfWork: {
        run: <T>(scope: TenantScope, work: (tx: TransactionalPorts) => Promise<T>) =>
          h.deps.unitOfWork.run(scope, (tx) =>
            work({
              ...tx,
              authorizations: {
                ...tx.authorizations,
                findVersions: async (versions) => {
                  await new PatchAnswersUseCase(h.deps).execute(SCOPE, {
                    authorizationId: second.id,
                    expectedVersion: 1,
                    items: [{ linkId: 'patient.memberId', answer: [{ valueString: 'M1' }] }],
                  });
                  return tx.authorizations.findVersions(versions);
                },
              },
            }),
          ),
      },
    };

    const page = await new ListAuthorizationsUseCase(deps).executeIfChanged(
      SCOPE,
      { limit: 10, status: 'requires_input' },
      (id) => (id === first.id ? 1 : undefined),
    );
    // Read again whole: every item loaded, the second at the version the second read found.
    expect(page.items.map((item) => ['unchanged' in item, item.id, item.version])).toEqual([
      [false, second.id, 2],
      [false, first.id, 1],
    ]);
  });
});

describe('PatchAnswersUseCase', () => {
  it('merges answers and saves the next version', async () => {
    const created = await h.createAuthorization({ questionnaireResponse: { item: [] } });
    const patched = await new PatchAnswersUseCase(h.deps).execute(SCOPE, {
      authorizationId: created.id,
      expectedVersion: 1,
      items: [{ linkId: 'patient.memberId', answer: [{ valueString: 'M1' }] }],
    });
    expect(patched.version).toBe(2);
    expect((await h.load(created.id)).questionnaireResponse.item).toEqual([
      { linkId: 'patient.memberId', answer: [{ valueString: 'M1' }] },
    ]);
  });

  it.each<[string, number, string | null]>([
    ['version_conflict', 7, null],
    ['authorization_not_found', 1, 'auth_404'],
  ])('refuses with %s', async (code, expectedVersion, authorizationId) => {
    const created = await h.createAuthorization();
    const commits = h.unitOfWork.commits;
    const result = new PatchAnswersUseCase(h.deps).execute(SCOPE, {
      authorizationId: authorizationId ?? created.id,
      expectedVersion,
      items: [],
    });
    expect(await codeOf(result)).toBe(code);
    expect(h.unitOfWork.commits).toBe(commits);
  });

  it('reports the stored version in a version conflict', async () => {
    const created = await h.createAuthorization();
    await expect(
      new PatchAnswersUseCase(h.deps).execute(SCOPE, {
        authorizationId: created.id,
        expectedVersion: 3,
        items: [],
      }),
    ).rejects.toMatchObject({ details: { expectedVersion: 3, actualVersion: 1 } });
  });

  it('refuses once processing with authorization_not_mutable', async () => {
    const processing = await h.authorizationIn('processing');
    const result = new PatchAnswersUseCase(h.deps).execute(SCOPE, {
      authorizationId: processing.id,
      expectedVersion: processing.version,
      items: [],
    });
    expect(await codeOf(result)).toBe('authorization_not_mutable');
  });
});

describe('AttachFileUseCase / DetachAttachmentUseCase', () => {
  it('attaches a ready file labelled with its name, clearing the document blocker', async () => {
    const created = await h.createAuthorization();
    const file = await h.readyFile();
    const { authorization, attachment } = await new AttachFileUseCase(h.deps).execute(SCOPE, {
      authorizationId: created.id,
      expectedVersion: 1,
      fileId: file.id,
      documentTypes: ['clinical_notes'],
      description: 'Visit notes',
    });
    expect(attachment).toMatchObject({ fileId: file.id, label: 'notes.pdf', description: 'Visit notes' });
    expect(authorization.status).toBe('requires_confirmation');
    expect(authorization.nextAction?.type).toBe('advance_case');
    expect((await h.load(created.id)).attachments).toHaveLength(1);
  });

  it('refuses an unknown file, another tenant’s file and an unready file', async () => {
    const created = await h.createAuthorization();
    const attach = (fileId: string) =>
      new AttachFileUseCase(h.deps).execute(SCOPE, {
        authorizationId: created.id,
        expectedVersion: 1,
        fileId,
        documentTypes: ['clinical_notes'],
        description: null,
      });
    expect(await codeOf(attach('file_404'))).toBe('file_not_found');
    expect(await codeOf(attach((await h.readyFile(OTHER_SCOPE)).id))).toBe('file_not_found');
    expect(await codeOf(attach((await h.uploadFile()).id))).toBe('file_not_ready');
    expect((await h.load(created.id)).version).toBe(1);
  });

  it('checks the version before looking at the file', async () => {
    const created = await h.createAuthorization();
    const result = new AttachFileUseCase(h.deps).execute(SCOPE, {
      authorizationId: created.id,
      expectedVersion: 2,
      fileId: 'file_404',
      documentTypes: ['clinical_notes'],
      description: null,
    });
    expect(await codeOf(result)).toBe('version_conflict');
  });

  it('detaches, bringing the blocker back; unknown attachments are attachment_not_found', async () => {
    const ready = await h.authorizationIn('requires_confirmation');
    const attachmentId = ready.attachments[0]!.id;
    const detach = new DetachAttachmentUseCase(h.deps);
    const detached = await detach.execute(SCOPE, {
      authorizationId: ready.id,
      expectedVersion: ready.version,
      attachmentId,
    });
    expect(detached.status).toBe('requires_input');
    expect(detached.attachments).toEqual([]);
    const again = detach.execute(SCOPE, {
      authorizationId: ready.id,
      expectedVersion: detached.version,
      attachmentId,
    });
    expect(await codeOf(again)).toBe('attachment_not_found');
    const stale = detach.execute(SCOPE, {
      authorizationId: ready.id,
      expectedVersion: ready.version,
      attachmentId,
    });
    expect(await codeOf(stale)).toBe('version_conflict');
  });
});

describe('ConfirmAuthorizationUseCase', () => {
  it('moves to processing and enqueues the process job in the same transaction', async () => {
    const ready = await h.authorizationIn('requires_confirmation');
    const confirmed = await new ConfirmAuthorizationUseCase(h.deps).execute(SCOPE, {
      authorizationId: ready.id,
      expectedVersion: ready.version,
      nextActionId: ready.nextAction!.id,
    });
    expect(confirmed.status).toBe('processing');
    expect(h.jobs()).toEqual([{ type: 'process', authorizationId: ready.id }]);
  });

  it.each<[string, (nextActionId: string) => { expectedVersion?: number; nextActionId?: string | null }]>([
    ['version_conflict', () => ({ expectedVersion: 99 })],
    ['next_action_mismatch', () => ({ nextActionId: 'act_stale' })],
    ['next_action_required', () => ({ nextActionId: null })],
  ])('refuses with %s and enqueues nothing', async (code, overrides) => {
    const ready = await h.authorizationIn('requires_confirmation');
    const result = new ConfirmAuthorizationUseCase(h.deps).execute(SCOPE, {
      authorizationId: ready.id,
      expectedVersion: ready.version,
      nextActionId: ready.nextAction!.id,
      ...overrides(ready.nextAction!.id),
    });
    expect(await codeOf(result)).toBe(code);
    expect(h.jobs()).toEqual([]);
  });
});

describe('CancelAuthorizationUseCase', () => {
  it('cancels, closing open handoffs as canceled, revoking their grants and releasing their sessions', async () => {
    const waiting = await h.authorizationIn('requires_action');
    const { handoff } = await new CreateManualHandoffUseCase(h.deps).execute(SCOPE, {
      authorizationId: waiting.id,
      expectedVersion: waiting.version,
    });
    const canceled = await new CancelAuthorizationUseCase(h.deps).execute(SCOPE, {
      authorizationId: waiting.id,
      expectedVersion: waiting.version,
    });
    expect(canceled.status).toBe('canceled');
    const stored = await h.unitOfWork.run(SCOPE, (tx) => tx.manualHandoffs.findById(handoff.id));
    expect(stored).toMatchObject({ currentState: 'closed', result: 'canceled' });
    expect(h.grantIssuer.revokedSubjects).toEqual([handoff.id]);
    expect(h.runtimeSessions.released).toEqual([handoff.runtimeSessionId]);
  });

  it('writes nothing when revoking the grants fails', async () => {
    const waiting = await h.authorizationIn('requires_action');
    await new CreateManualHandoffUseCase(h.deps).execute(SCOPE, {
      authorizationId: waiting.id,
      expectedVersion: waiting.version,
    });
    h.grantIssuer.failRevoke = new Error('grant service down');
    await expect(
      new CancelAuthorizationUseCase(h.deps).execute(SCOPE, {
        authorizationId: waiting.id,
        expectedVersion: waiting.version,
      }),
    ).rejects.toThrow('grant service down');
    expect((await h.load(waiting.id)).status).toBe('requires_action');
  });

  it.each<[string, number | null]>([
    ['version_conflict', 42],
    ['authorization_not_cancelable', null],
  ])('refuses with %s', async (code, expectedVersion) => {
    const created = await h.createAuthorization();
    const cancel = new CancelAuthorizationUseCase(h.deps);
    const canceled = await cancel.execute(SCOPE, { authorizationId: created.id, expectedVersion: 1 });
    const result = cancel.execute(SCOPE, {
      authorizationId: created.id,
      expectedVersion: expectedVersion ?? canceled.version,
    });
    expect(await codeOf(result)).toBe(code);
  });
});
