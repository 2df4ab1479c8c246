/**
 * One read at a time, never one missed: a call while a read runs makes it read once more after it,
 * however many calls came meanwhile (a burst of changes costs at most two reads). A failed read is
 * reported and the next call retries.
 */
export class SingleRead {
  #running: Promise<void> | null = null;
  #again = false;

  constructor(
    private readonly read: () => Promise<void>,
    private readonly failed: (error: unknown) => void,
  ) {}

  run(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          await this.read();
        } while (this.#again);
      } catch (error) {
        this.failed(error);
      } finally {
        this.#running = null;
      }
    })();
    return this.#running;
  }
}
