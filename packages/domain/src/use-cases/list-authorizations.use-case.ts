import { type Authorization } from '../authorization/authorization.aggregate';
import { type AuthorizationStatus } from '../authorization/authorization.types';
import { type DomainPorts } from '../ports';
import {
  type AuthorizationListQuery,
  type AuthorizationUnchanged,
  type AuthorizationVersion,
  type Page,
} from '../ports/authorization.repository.port';
import { type TenantScope } from '../shared/scope';

export type ListAuthorizationsDeps = Pick<DomainPorts, 'unitOfWork' | 'clock'>;

export interface ListAuthorizationsCommand {
  status?: AuthorizationStatus;
  /** Only cases waiting on the payer past their decision due time (docs/decisions/0031-events-and-webhooks.md). */
  overdue?: boolean;
  limit: number;
  cursor?: string;
}

/** Newest first; limit and cursor are validated by the API (decision 0023). */
export class ListAuthorizationsUseCase {
  constructor(private readonly deps: ListAuthorizationsDeps) {}

  execute(scope: TenantScope, command: ListAuthorizationsCommand): Promise<Page<Authorization>> {
    return this.deps.unitOfWork.run(scope, (tx) => tx.authorizations.list(this.query(command)));
  }

  /**
   * The same page, but an item whose stored version is the one `knownVersion` gives for its id is only that
   * fact (as GetAuthorizationUseCase.executeIfChanged): the list is read as versions first, and only the other
   * items are loaded. When one of those moved on between the two reads, the page is read again whole, so it
   * always shows one moment of the list (a case that left a status filter meanwhile is not shown with its new
   * status).
   */
  executeIfChanged(
    scope: TenantScope,
    command: ListAuthorizationsCommand,
    knownVersion: (id: string) => number | undefined,
  ): Promise<Page<Authorization | AuthorizationUnchanged>> {
    const query = this.query(command);
    return this.deps.unitOfWork.run(scope, async (tx) => {
      const listed = await tx.authorizations.listVersions(query);
      const wanted = listed.items.filter((item) => knownVersion(item.id) !== item.version);
      const loaded = wanted.length === 0 ? [] : await tx.authorizations.findVersions(wanted);
      if (loaded.length < wanted.length) return tx.authorizations.list(query);
      const byId = new Map(loaded.map((authorization) => [authorization.id, authorization]));
      return {
        items: listed.items.map((item) => byId.get(item.id) ?? unchanged(item)),
        nextCursor: listed.nextCursor,
      };
    });
  }

  private query({ overdue, ...query }: ListAuthorizationsCommand): AuthorizationListQuery {
    return overdue === true ? { ...query, decisionOverdueAt: this.deps.clock.now() } : query;
  }
}

const unchanged = ({ id, version }: AuthorizationVersion): AuthorizationUnchanged => ({
  unchanged: true,
  id,
  version,
});
