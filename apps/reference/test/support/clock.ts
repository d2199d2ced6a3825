/** A clock that stands still until a test moves it. */
export class TestClock {
  private ms: number;

  constructor(start: Date | string) {
    this.ms = new Date(start).getTime();
  }

  readonly now = (): Date => new Date(this.ms);

  set(instant: Date | string): void {
    this.ms = new Date(instant).getTime();
  }

  advance(ms: number): void {
    this.ms += ms;
  }
}
