import { type RuntimeSessions } from '../../ports/runtime-sessions.port';

/**
 * Releases runtime sessions after the change that ended their use has committed. Failures are swallowed on
 * purpose: the change is already durable, grants re-check the handoff when opened, and an unreleased session
 * times out at the provider on its own; failing the request now would only invite a retry that cannot succeed.
 */
export async function releaseSessionsQuietly(
  runtimeSessions: RuntimeSessions,
  sessionIds: ReadonlyArray<string | null>,
): Promise<void> {
  await Promise.all(
    sessionIds
      .filter((id): id is string => id !== null)
      .map((id) => runtimeSessions.release(id).catch(() => undefined)),
  );
}
