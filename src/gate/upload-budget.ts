/**
 * Bytes of request bodies held in memory at once, across all requests: bodies still arriving and
 * bodies of requests not yet answered. A slow client holds only what it has sent, so a crowd of
 * slow uploaders cannot exhaust it; a crowd of fast large ones is refused (503) instead of
 * exhausting memory.
 */
export class UploadBudget {
  #held = 0;

  constructor(readonly maxBytes: number) {}

  /** Takes `bytes` if they fit; false when the budget is spent. */
  take(bytes: number): boolean {
    if (this.#held + bytes > this.maxBytes) return false;
    this.#held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#held -= bytes;
  }

  get heldBytes(): number {
    return this.#held;
  }
}
