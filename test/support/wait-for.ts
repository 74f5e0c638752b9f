export interface WaitForOptions {
  /** What is awaited, for the failure message: "the second frame's result". */
  readonly what: string;
  /** Fail after this long. Well under mocha's 60 s, so that the failure says what never came. */
  readonly deadlineMs?: number;
  /** Pause between checks. */
  readonly intervalMs?: number;
}

/** What a truthy check gives back: its value without the falsy alternatives. */
type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/**
 * Checks `condition` until it gives a truthy value, and returns that value; fails with what was
 * awaited once `deadlineMs` has passed. Tests poll with this rather than a loop of their own, so
 * that none waits for mocha's timeout instead of failing clearly.
 */
export async function waitFor<T>(condition: () => T | Promise<T>, { what, deadlineMs = 10_000, intervalMs = 10 }: WaitForOptions): Promise<Truthy<T>> {
  const deadline = performance.now() + deadlineMs;
  for (;;) {
    const value = await condition();
    if (value) return value as Truthy<T>;
    if (performance.now() >= deadline) throw new Error(`waited ${deadlineMs} ms for ${what}; it never came`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
