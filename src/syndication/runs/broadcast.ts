// Hands each value a run produces to whoever is listening, without the run waiting for them or
// keeping what nobody asked for. Every iteration is a subscription with its own queue, receiving
// the values published from then on; breaking out of the loop unsubscribes.

class Subscription<T> {
  private queue: T[] = [];
  private head = 0;
  private waiting: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | null = null;
  private finished: { error?: unknown } | null = null;

  push(value: T): void {
    // Stryker disable next-line ConditionalExpression: a finished subscription is out of the broadcast's set, so nothing pushes to it.
    if (this.finished) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve({ value, done: false });
      return;
    }
    this.queue.push(value);
  }

  finish(error?: unknown): void {
    // Stryker disable next-line ConditionalExpression: a second finish comes only from a loop's return() after the end, and a for await never reads again.
    if (this.finished) return;
    // Stryker disable next-line ConditionalExpression: { error: undefined } reads as no error everywhere.
    this.finished = error === undefined ? {} : { error };
    if (
      this.waiting &&
      // Stryker disable next-line ConditionalExpression: a listener waits only once it has read its whole queue.
      this.head >= this.queue.length
    ) {
      const { resolve, reject } = this.waiting;
      this.waiting = null;
      if (error === undefined) resolve({ value: undefined, done: true });
      else reject(error);
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.queue.length) {
      const value = this.queue[this.head] as T;
      this.head += 1;
      // Drops consumed values now and then, so a long-lived subscriber's queue stays small.
      // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,ArithmeticOperator: compacting is slice(head) with head = 0, so the values read are the same whenever it happens; only memory differs.
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.finished) {
      if (this.finished.error !== undefined) {
        const error = this.finished.error;
        this.finished = {};
        return Promise.reject(error);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }
}

export class Broadcast<T> implements AsyncIterable<T> {
  private readonly subscriptions = new Set<Subscription<T>>();
  private ended: { error?: unknown } | null = null;

  /** How many are listening now. */
  get subscribers(): number {
    return this.subscriptions.size;
  }

  publish(value: T): void {
    for (const subscription of this.subscriptions) subscription.push(value);
  }

  /** No more values: iterations end (or throw `error`) once they have read what they were sent. */
  end(error?: unknown): void {
    if (this.ended) return;
    // Stryker disable next-line ConditionalExpression: { error: undefined } reads as no error everywhere.
    this.ended = error === undefined ? {} : { error };
    for (const subscription of this.subscriptions) subscription.finish(error);
    this.subscriptions.clear();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    const subscription = new Subscription<T>();
    if (this.ended) subscription.finish(this.ended.error);
    else this.subscriptions.add(subscription);
    return {
      next: () => subscription.next(),
      return: async () => {
        this.subscriptions.delete(subscription);
        subscription.finish();
        return { value: undefined, done: true };
      },
    };
  }
}
