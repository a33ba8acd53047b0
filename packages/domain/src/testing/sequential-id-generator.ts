import { type IdGenerator } from '../ports/id-generator.port';

/** `<prefix>_<n>` with one counter per prefix, so tests can name the ids they expect. */
export class SequentialIdGenerator implements IdGenerator {
  private readonly counters = new Map<string, number>();

  newId(prefix: string): string {
    const next = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, next);
    return `${prefix}_${next}`;
  }
}
