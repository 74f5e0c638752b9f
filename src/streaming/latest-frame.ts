/**
 * The real-time rule of a stream: at most one frame waits for the model, and it is the newest.
 * A frame that arrives while another is waiting replaces it; the replaced one is counted as
 * dropped, never processed late.
 */
export class LatestFrameSlot<T> {
  #waiting: T | undefined;
  #dropped = 0;

  /** Puts `frame` in the slot, replacing (and counting as dropped) any frame still waiting. */
  offer(frame: T): void {
    if (this.#waiting !== undefined) this.#dropped++;
    this.#waiting = frame;
  }

  get hasFrame(): boolean {
    return this.#waiting !== undefined;
  }

  /** The waiting frame and how many frames were dropped since the previous take, or undefined when empty. */
  take(): { frame: T; dropped: number } | undefined {
    const frame = this.#waiting;
    if (frame === undefined) return undefined;
    const dropped = this.#dropped;
    this.#waiting = undefined;
    this.#dropped = 0;
    return { frame, dropped };
  }
}
