import { type AuthorizationContext } from '../../authorization/authorization.types';
import { type Clock } from '../../ports/clock.port';
import { type IdGenerator } from '../../ports/id-generator.port';
import { evaluateRequirements } from '../../requirements/requirements-engine';

/** One reading of the clock per command, so every timestamp a command writes is the same instant. */
export const authorizationContext = (
  deps: { clock: Clock; ids: IdGenerator },
  now = deps.clock.now(),
): AuthorizationContext => ({
  now,
  newId: (prefix) => deps.ids.newId(prefix),
  evaluate: evaluateRequirements,
});

/** The context File and ManualHandoff need: the same clock reading and the shared id generator. */
export const plainContext = <P extends string>(
  deps: { clock: Clock; ids: IdGenerator },
  now = deps.clock.now(),
): { now: Date; newId(prefix: P): string } => ({
  now,
  newId: (prefix) => deps.ids.newId(prefix),
});
