// The listeners of one kind of event (a post changed, an account saved, a run's progress), kept in
// one place for the host and the core: `onChange(listener)` hands back the function that stops it,
// and a listener that throws never fails the change that was made nor keeps the others from hearing.

/**
 * @example
 * const listeners = new Listeners<PostChange>();
 * const stop = listeners.add((change) => wake(change.post));
 * listeners.tell({ kind: "created", post });
 * stop();
 */
export class Listeners<Event> {
  readonly #listeners = new Set<(event: Event) => void>();

  /** `onFault` hears a listener's error (to log it); without it the error is dropped. */
  constructor(private readonly onFault: (error: unknown) => void = () => {}) {}

  /** Adds `listener`; returns the function that removes it. */
  add(listener: (event: Event) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Tells every listener, in the order they were added. */
  tell(event: Event): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.onFault(error);
      }
    }
  }
}
