/** Thrown by `BoundedQueue.run` when the queue is full; the caller decides the answer (a 429 for hashing). */
export class QueueFullError extends Error {
  constructor() {
    super("queue full");
    this.name = "QueueFullError";
  }
}

/**
 * Runs at most `concurrency` tasks at once and lets at most `maxWaiting` more wait; anything beyond is
 * refused at once instead of piling up. Password hashing runs through one, so a flood of sign-ins cannot
 * take every core and all the memory (RELIABILITY L4): excess requests get a quick 429.
 */
export class BoundedQueue {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  readonly concurrency: number;
  readonly maxWaiting: number;

  constructor(concurrency: number, maxWaiting: number) {
    this.concurrency = concurrency;
    this.maxWaiting = maxWaiting;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.concurrency) {
      if (this.#waiting.length >= this.maxWaiting) throw new QueueFullError();
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running += 1;
    }
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so the running count only drops when none waits.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running -= 1;
    }
  }
}
