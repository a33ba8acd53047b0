import { type Authorization } from '../authorization/authorization.aggregate';
import { type RevealPortalRequirementsInput } from '../authorization/authorization.types';
import { type PortalDiscovery } from '../ports/payer-portal.port';
import { type RequirementIssue } from '../requirements/questionnaire.types';
import { type TenantScope } from '../shared/scope';
import { type PipelineDeps, type PipelineOutcome, PipelineSteps } from './support/pipeline-steps.helper';

export type ProcessAuthorizationDeps = PipelineDeps;

/**
 * The worker's `process` job: moves a processing case towards the payer. Discovery may reveal requirements
 * (back to the customer); then validation, preparation and either the final review (policy
 * requires_confirmation) or, for policy automatic, crossing the final boundary and submitting. The boundary
 * crossing is committed before the submit call, so a crash in between is recovered by reconciliation.
 */
export class ProcessAuthorizationUseCase {
  private readonly steps: PipelineSteps;

  constructor(private readonly deps: ProcessAuthorizationDeps) {
    this.steps = new PipelineSteps(deps);
  }

  async execute(scope: TenantScope, command: { authorizationId: string }): Promise<PipelineOutcome> {
    const snapshot = await this.steps.read(scope, command.authorizationId, (a) => a.status === 'processing');
    if (snapshot === null) return 'skipped';
    // Approved (or crossed by an earlier run that may have crashed): the payer may already have it.
    if (snapshot.authorization.finalBoundaryCrossedAt !== null) {
      return this.steps.submitAfterBoundary(scope, snapshot, { reconcileFirst: true });
    }
    const unchanged = this.steps.unchangedSince(snapshot);
    const portal = this.deps.payerPortal;
    try {
      const discovery = await portal.discover(snapshot.portalCase);
      const discovered = newRequirements(
        snapshot.authorization,
        discovery,
        discovery.issues.filter(isBlocking),
      );
      if (discovered !== null)
        return await this.reveal(scope, command.authorizationId, unchanged, discovered);

      const validation = await portal.validate(snapshot.portalCase);
      const rejected = validation.issues.filter(isBlocking);
      if (rejected.length > 0)
        return await this.reveal(scope, command.authorizationId, unchanged, { issues: rejected });

      const issues = [...discovery.issues, ...validation.issues];
      const prepared = await portal.prepareSubmission(snapshot.portalCase);
      if (snapshot.authorization.policy.finalSubmission === 'requires_confirmation') {
        const warnings = [
          ...prepared.warnings,
          ...issues.filter((i) => !isBlocking(i)).map((i) => i.message),
        ];
        const written = await this.steps.write(scope, command.authorizationId, unchanged, (a, ctx) => {
          a.requestFinalApproval(
            { summary: prepared.summary, warnings, liveViewUrl: prepared.liveViewUrl },
            ctx,
          );
        });
        return written === null ? 'superseded' : 'awaiting_final_approval';
      }

      const crossed = await this.steps.write(scope, command.authorizationId, unchanged, (a, ctx) =>
        a.crossFinalBoundary(ctx),
      );
      if (crossed === null) return 'superseded';
      return await this.steps.submitAfterBoundary(
        scope,
        { authorization: crossed, portalCase: snapshot.portalCase },
        { reconcileFirst: false },
      );
    } catch (error) {
      return this.steps.failOnPermanentError(scope, snapshot, error);
    }
  }

  private async reveal(
    scope: TenantScope,
    authorizationId: string,
    unchanged: (a: Authorization) => boolean,
    revealed: RevealPortalRequirementsInput,
  ): Promise<PipelineOutcome> {
    const written = await this.steps.write(scope, authorizationId, unchanged, (a, ctx) =>
      a.revealPortalRequirements(revealed, ctx),
    );
    return written === null ? 'superseded' : 'requirements_revealed';
  }
}

/** Only error-severity findings block; warnings and info are shown in the final review instead. */
const isBlocking = (issue: RequirementIssue): boolean => issue.severity === 'error';

/**
 * What the portal asks for that the case does not know yet. The portal may report items and document types
 * the case already has (the pinned template, or an earlier reveal); revealing those again would send an
 * answered case back to the customer for nothing, and round and round.
 */
function newRequirements(
  authorization: Authorization,
  discovery: PortalDiscovery,
  blockingIssues: RequirementIssue[],
): RevealPortalRequirementsInput | null {
  const state = authorization.toState();
  const knownLinkIds = new Set(state.questionnaire.groups.flatMap((g) => g.items.map((i) => i.linkId)));
  const knownDocumentTypes = new Set(state.documentRequirements.map((d) => d.type));
  const items = discovery.items.filter((item) => !knownLinkIds.has(item.linkId));
  const documents = discovery.documents.filter((document) => !knownDocumentTypes.has(document.type));
  if (items.length + documents.length + blockingIssues.length === 0) return null;
  return { items, documents, issues: blockingIssues };
}
