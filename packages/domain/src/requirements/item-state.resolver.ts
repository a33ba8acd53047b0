import { MAX_GROUP_INSTANCES } from '../shared/input-limits';
import { isRecord } from './condition-evaluator';
import type { Answer, QuestionnaireResponse } from './questionnaire.types';
import type { CompiledTemplate } from './template-compiler';

const NO_ANSWERS: readonly Answer[] = Object.freeze([]);

/** One repeating group's instances and, per instance, its items' answers and allowed-ness. */
export interface GroupInstanceStates {
  /** Instance numbers in ascending order: those with an answer, or the first (0) when none has one. */
  instances: number[];
  /** Per instance (same order as `instances`), per item index: the answers given in that instance. */
  answers: Array<Array<readonly Answer[]>>;
  /**
   * Per instance, what that instance's conditions read: the group's items as answered in this instance,
   * every other item as `ItemStates.effective` has it; nothing for items not allowed in the instance.
   */
  effective: Array<Array<readonly Answer[]>>;
  allowed: boolean[][];
}

/** A response entry whose `instance` cannot apply: its item is outside any repeating group, or out of range. */
export interface MisplacedInstance {
  linkId: string;
  reason: 'not_repeating' | 'out_of_range';
}

export interface ItemStates {
  /**
   * The answers given, per item index (several response entries for one linkId are concatenated; the items of
   * a repeating group hold every instance's answers, in instance order).
   */
  answers: Array<readonly Answer[]>;
  /**
   * What conditions outside repeating groups read: the answers of allowed items, nothing for items that are
   * not allowed. An item of a repeating group holds the answers of the instances where it is allowed.
   */
  effective: Array<readonly Answer[]>;
  /** For an item of a repeating group: allowed in at least one instance. */
  allowed: boolean[];
  /** linkIds given answers that the template does not have, in response order, each once. */
  unknownLinkIds: string[];
  /** Per repeating group of the compiled template (same order). */
  groups: GroupInstanceStates[];
  /** Entries given an `instance` that does not apply, in response order, each linkId once. */
  misplacedInstances: MisplacedInstance[];
}

export type AllowedCallback = (
  index: number,
  effective: Array<readonly Answer[]>,
  instance: number | undefined,
) => void;

/** Indexes a response by item (and group instance) and decides which items are allowed, in dependency order. */
export function resolveItemStates(
  compiled: CompiledTemplate,
  response: QuestionnaireResponse,
  onAllowed?: AllowedCallback,
): ItemStates {
  const count = compiled.items.length;
  const answers: Array<readonly Answer[]> = new Array<readonly Answer[]>(count).fill(NO_ANSWERS);
  const unknown = new Set<string>();
  const misplaced = new Map<string, MisplacedInstance>();
  const byInstance = compiled.repeatingGroups.map(() => new Map<number, Array<readonly Answer[]>>());
  // Defensive: the response may be stored or client JSON; evaluation must not throw on its shape.
  const entries: unknown[] = isRecord(response) && Array.isArray(response.item) ? response.item : [];
  for (const entry of entries) {
    if (!isRecord(entry)) continue;
    const linkId = typeof entry['linkId'] === 'string' ? entry['linkId'] : '';
    const given = Array.isArray(entry['answer']) ? (entry['answer'] as Answer[]) : NO_ANSWERS;
    // An entry without answers asserts nothing (it clears), so even an unknown linkId there is harmless.
    if (given.length === 0) continue;
    const index = compiled.indexByLinkId.get(linkId);
    if (index === undefined) {
      unknown.add(linkId);
      continue;
    }
    const group = compiled.repeatingGroupOf[index] ?? -1;
    const rawInstance = entry['instance'];
    if (group === -1) {
      if (rawInstance !== undefined && !misplaced.has(linkId))
        misplaced.set(linkId, { linkId, reason: 'not_repeating' });
      answers[index] = concat(answers[index], given);
      continue;
    }
    let instance = 0;
    if (rawInstance !== undefined) {
      if (isInstance(rawInstance)) instance = rawInstance;
      else {
        if (!misplaced.has(linkId)) misplaced.set(linkId, { linkId, reason: 'out_of_range' });
        continue;
      }
    }
    const perInstance = byInstance[group] as Map<number, Array<readonly Answer[]>>;
    let row = perInstance.get(instance);
    if (!row) {
      row = new Array<readonly Answer[]>(count).fill(NO_ANSWERS);
      perInstance.set(instance, row);
    }
    row[index] = concat(row[index], given);
  }

  const groups = compiled.repeatingGroups.map((repeating, group): GroupInstanceStates => {
    const perInstance = byInstance[group] as Map<number, Array<readonly Answer[]>>;
    const instances = perInstance.size === 0 ? [0] : [...perInstance.keys()].sort((a, b) => a - b);
    const rows = instances.map(
      (instance) => perInstance.get(instance) ?? new Array<readonly Answer[]>(count).fill(NO_ANSWERS),
    );
    for (const index of repeating.indexes) {
      let all: readonly Answer[] = NO_ANSWERS;
      for (const row of rows) all = concat(all, row[index]);
      answers[index] = all;
    }
    return { instances, answers: rows, effective: [], allowed: [] };
  });

  const { effective, allowed } = settle(compiled, answers, groups, onAllowed);
  return {
    answers,
    effective,
    allowed,
    unknownLinkIds: [...unknown],
    groups,
    misplacedInstances: [...misplaced.values()],
  };
}

/**
 * Allowed-ness in topological order: when an item's `notAllowedWhen` runs, every item it reads is already
 * settled, so a disallowed item is seen as unanswered. An item of a repeating group is settled in each instance
 * on that instance's view (FHIR: a condition reads the answer in the same group instance); items elsewhere read
 * the group's items across the instances where they are allowed. Linear in template size times instances.
 */
function settle(
  compiled: CompiledTemplate,
  answers: ReadonlyArray<readonly Answer[]>,
  groups: GroupInstanceStates[],
  onAllowed: AllowedCallback | undefined,
): { effective: Array<readonly Answer[]>; allowed: boolean[] } {
  const effective = answers.slice();
  const allowed = new Array<boolean>(answers.length).fill(true);
  groups.forEach((state, group) => {
    const indexes = compiled.repeatingGroups[group]?.indexes ?? [];
    state.effective = state.answers.map((row) => {
      const view = answers.slice();
      for (const index of indexes) view[index] = row[index] ?? NO_ANSWERS;
      return view;
    });
    state.allowed = state.answers.map(() => new Array<boolean>(answers.length).fill(true));
  });
  for (const index of compiled.allowedOrder) {
    const condition = compiled.items[index]?.notAllowedWhen;
    const group = compiled.repeatingGroupOf[index] ?? -1;
    if (group === -1) {
      if (condition && condition(effective)) {
        allowed[index] = false;
        effective[index] = NO_ANSWERS;
      } else if (onAllowed) {
        onAllowed(index, effective, undefined);
      }
    } else {
      const state = groups[group] as GroupInstanceStates;
      let all: readonly Answer[] = NO_ANSWERS;
      let anyAllowed = false;
      state.effective.forEach((view, position) => {
        if (condition && condition(view)) {
          (state.allowed[position] as boolean[])[index] = false;
          view[index] = NO_ANSWERS;
        } else {
          anyAllowed = true;
          if (onAllowed) onAllowed(index, view, state.instances[position]);
        }
        all = concat(all, view[index]);
      });
      allowed[index] = anyAllowed;
      effective[index] = all;
    }
    // Every other repeating group's instances read this item as the rest of the form does.
    for (let other = 0; other < groups.length; other += 1) {
      if (other === group) continue;
      for (const view of (groups[other] as GroupInstanceStates).effective)
        view[index] = effective[index] ?? NO_ANSWERS;
    }
  }
  return { effective, allowed };
}

function isInstance(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value < MAX_GROUP_INSTANCES
  );
}

function concat(
  previous: readonly Answer[] | undefined,
  given: readonly Answer[] | undefined,
): readonly Answer[] {
  if (!previous || previous.length === 0) return given ?? NO_ANSWERS;
  if (!given || given.length === 0) return previous;
  return [...previous, ...given];
}
