import { type Clock } from '../ports/clock.port';

/** A clock that only moves when told to. */
export class FixedClock implements Clock {
  private current: Date;

  constructor(start = new Date('2026-03-02T09:00:00.000Z')) {
    this.current = new Date(start);
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }

  set(date: Date): void {
    this.current = new Date(date);
  }
}
