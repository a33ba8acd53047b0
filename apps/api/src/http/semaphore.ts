/** At most `permits` concurrent runs of `use`; the others wait in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly permits: number) {
    if (!Number.isInteger(permits) || permits < 1)
      throw new RangeError('a semaphore needs at least one permit');
  }

  async use<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < this.permits) this.active += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      // Hand the permit straight to the next waiter, or give it back.
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
