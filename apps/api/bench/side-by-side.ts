import autocannon, { type Request as CannonRequest } from 'autocannon';

/**
 * Rounds each target's side-by-side pass is cut into. One pass after the other measured the floor, then the API
 * on a machine whose speed had drifted since (the host's other tenants): the same build's create ratio ran from
 * 0.63 to 0.85 in one sitting. Alternated rounds put both under the same drift (decision 0063).
 */
export const SIDE_BY_SIDE_ROUNDS = 4;

/**
 * The order the rounds run in: each target once a round, the order swapped every round, so that neither always
 * runs after the other (`[api, floor]` gives floor, API, API, floor, floor, API, …).
 */
export function roundOrder<T>(targets: readonly T[], rounds: number): T[] {
  const order: T[] = [];
  for (let round = 0; round < rounds; round += 1) {
    order.push(...(round % 2 === 0 ? [...targets].reverse() : targets));
  }
  return order;
}

/** One round's autocannon result, kept raw (`skipAggregateResult`) to be joined with the target's others. */
export interface Round {
  result: unknown;
  /** How long the round ran, as autocannon measured it. */
  seconds: number;
}

export async function cannonRound(
  url: string,
  requests: CannonRequest[],
  connections: number,
  seconds: number,
): Promise<Round> {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests,
    skipAggregateResult: true,
  });
  // A run made with `skipAggregateResult` reports its length in seconds as `duration`.
  return { result, seconds: (result as unknown as { duration: number }).duration };
}

/** autocannon's sum of runs made with `skipAggregateResult` (exported, but absent from its type declarations). */
const aggregateResult = (
  autocannon as unknown as {
    aggregateResult(results: unknown[], options: { url: string; connections: number }): autocannon.Result;
  }
).aggregateResult;

/**
 * A target's rounds as one pass: counts added up and latencies from the rounds' histograms joined (autocannon's
 * own `aggregateResult`), over the rounds' seconds added up. The joined result's per-second figures
 * (`requests.average` and the like) are not filled in: divide by `seconds`.
 */
export function joinRounds(
  rounds: readonly Round[],
  url: string,
  connections: number,
): { result: autocannon.Result; seconds: number } {
  return {
    result: aggregateResult(
      rounds.map((round) => round.result),
      { url, connections },
    ),
    seconds: rounds.reduce((all, round) => all + round.seconds, 0),
  };
}
