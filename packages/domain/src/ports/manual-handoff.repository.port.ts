import { type ManualHandoff } from '../manual-handoff/manual-handoff.aggregate';

/** Manual handoffs of one tenant; bound to a TenantScope by the unit of work. */
export interface ManualHandoffRepository {
  findById(id: string): Promise<ManualHandoff | null>;
  /** Newest first, like every list of the API: a handful per authorization, so no pagination. */
  listByAuthorization(authorizationId: string): Promise<ManualHandoff[]>;
  /**
   * The handoff that still owns the interaction lineage: state other than `closed`, or `closed` with a
   * reconciliation still `pending` (see `ManualHandoff.ownsInteraction`). At most one exists.
   */
  findOpenByInteraction(authorizationId: string, interactionActionId: string): Promise<ManualHandoff | null>;
  /** Insert or optimistic update, exactly as AuthorizationRepository.save. */
  save(handoff: ManualHandoff): Promise<void>;
}
