import { type Environment } from './scope';

/** The part of an aggregate's state every tenant-scoped, versioned aggregate has. */
interface VersionedState {
  id: string;
  organizationId: string;
  environment: Environment;
  version: number;
}

/**
 * What the File and ManualHandoff aggregates share: a tenant-scoped state with an optimistic version, the
 * events recorded since the last pull, and the version last read from or written to storage.
 */
export abstract class VersionedAggregate<State extends VersionedState, Event> {
  protected state: State;
  protected events: Event[] = [];
  private persisted: number | null;

  protected constructor(state: State, persistedVersion: number | null) {
    this.state = state;
    this.persisted = persistedVersion;
  }

  get id(): string {
    return this.state.id;
  }
  get organizationId(): string {
    return this.state.organizationId;
  }
  get environment(): Environment {
    return this.state.environment;
  }
  get version(): number {
    return this.state.version;
  }

  /** The version last read from or written to storage; null until first saved. */
  get persistedVersion(): number | null {
    return this.persisted;
  }

  markPersisted(): void {
    this.persisted = this.state.version;
  }

  /** Returns the events recorded since the last pull and forgets them. */
  pullEvents(): Event[] {
    const events = this.events;
    this.events = [];
    return events;
  }
}
