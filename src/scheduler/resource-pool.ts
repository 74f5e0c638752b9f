/** Thrown by `ResourcePool.acquire` when its signal aborts before a resource was free. */
export class AcquireAbortedError extends Error {
  constructor(reason: unknown) {
    super('gave up waiting for a free resource', { cause: reason });
  }
}

/**
 * A fixed set of reusable resources (input tensors, run slots) handed out first-come first-served.
 * Waiters queue; an aborted waiter leaves the queue.
 */
export class ResourcePool<T> {
  readonly #free: T[];
  readonly #waiters: { resolve: (resource: T) => void; reject: (error: Error) => void }[] = [];

  constructor(resources: readonly T[]) {
    this.#free = [...resources];
  }

  acquire(signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(new AcquireAbortedError(signal.reason));
    const resource = this.#free.pop();
    if (resource !== undefined) return Promise.resolve(resource);
    return new Promise<T>((resolve, reject) => {
      // The abort listener lives only while waiting: long-lived signals (a video stream's) would
      // otherwise collect one listener per frame.
      const onAbort = () => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(new AcquireAbortedError(signal!.reason));
      };
      const waiter = {
        resolve: (granted: T) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(granted);
        },
        reject,
      };
      this.#waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  release(resource: T): void {
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve(resource);
    else this.#free.push(resource);
  }

  /** Runs `task` with a resource and always gives it back. */
  async use<R>(task: (resource: T) => Promise<R>, signal?: AbortSignal): Promise<R> {
    const resource = await this.acquire(signal);
    try {
      return await task(resource);
    } finally {
      this.release(resource);
    }
  }
}
