/**
 * A first-in, first-out lock for an entity workflow's update handlers. Each piece of work
 * starts only after the previous one settled, so it sees every change the earlier ones
 * made. `condition(() => !busy)` is not enough: every waiter whose condition holds is
 * released in the same activation and they all run at once.
 *
 * Plain promise chaining: deterministic, so it replays.
 */
export function serialQueue(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work);
    tail = run.catch(() => undefined);
    return run;
  };
}
