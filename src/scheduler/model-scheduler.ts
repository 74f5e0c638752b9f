import type { RgbImage } from '../vision/image.js';
import { type PostprocessOptions, type DetectionResult, isDetector, type ServedModel } from '../models/types.js';

/**
 * Who is waiting for the model: single-image requests, or video streams. The lanes take turns
 * whenever both wait, so neither kind of caller can starve the other.
 */
export type Lane = 'request' | 'stream';

/** `admit` refused: the request lane already holds `maxAdmitted` requests. */
export class QueueFullError extends Error {
  constructor(readonly maxAdmitted: number) {
    super(`${maxAdmitted} requests are already admitted for this model`);
  }
}

/** A wait for the model ended by its signal (deadline passed, caller gone, stream closed). */
export class WaitAbortedError extends Error {
  constructor(reason: unknown) {
    super('gave up waiting for the model', { cause: reason });
  }
}

/** The right to use one of the model's input buffers until `release`. */
export interface ModelTurn {
  /** Preprocesses the image into this turn's input buffer, runs inference, postprocesses; stage timings included. */
  detect(image: RgbImage, options: PostprocessOptions, signal: AbortSignal): Promise<SchedulerResult>;
  release(): void;
}

export interface SchedulerResult extends DetectionResult {
  /** Milliseconds spent waiting for a run slot after preprocessing (included in no stage). */
  readonly runWaitMs: number;
}

export interface SchedulerSettings {
  /** Requests admitted to the request lane at once (decoding, waiting or running); more are refused. */
  readonly maxAdmitted: number;
  /** Told of every run of the model once it ends: how long it held its run slot, in milliseconds (per-model metrics). */
  readonly onRun?: (model: ServedModel, runMs: number) => void;
}

interface Waiter<T> {
  readonly grant: (value: T) => void;
  readonly reject: (error: Error) => void;
}

/** A FIFO of waiters that leave when their signal aborts. */
class WaitQueue<T> {
  readonly #waiters: Waiter<T>[] = [];

  get length(): number {
    return this.#waiters.length;
  }

  wait(signal: AbortSignal): Promise<T> {
    if (signal.aborted) return Promise.reject(new WaitAbortedError(signal.reason));
    return new Promise<T>((resolve, reject) => {
      // The listener lives only while waiting: a stream's long-lived signal would otherwise collect one per frame.
      const onAbort = () => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(new WaitAbortedError(signal.reason));
      };
      const waiter: Waiter<T> = {
        grant: (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject,
      };
      this.#waiters.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Hands `value` to the longest waiter; false when none waits. */
  grant(value: T): boolean {
    const waiter = this.#waiters.shift();
    waiter?.grant(value);
    return waiter !== undefined;
  }
}

/**
 * The one place that decides who uses a model and when, whatever its role: the request lane's
 * admission bound, the model's input buffers (turns, shared fairly between requests and streams),
 * its run slots, and every wait's deadline. A model has no queue of its own. A detector runs
 * through a turn's `detect`; a model of another role (a plate reader, a face describer) through `run`.
 */
export class ModelScheduler<Model extends ServedModel = ServedModel> {
  readonly #freeInputs: number[];
  readonly #lanes: Record<Lane, WaitQueue<number>> = { request: new WaitQueue(), stream: new WaitQueue() };
  readonly #runQueue = new WaitQueue<void>();
  #runsInFlight = 0;
  /** A run alone is in flight: it may use every thread, so no other starts until it ends. */
  #runningAlone = false;
  #admitted = 0;
  /** Turns held by streams (a stream takes its turn before decoding; a request after). */
  #streamTurns = 0;
  /** The lane served last when both were waiting; the other goes next. */
  #lastServed: Lane = 'stream';

  constructor(
    readonly model: Model,
    private readonly settings: SchedulerSettings,
  ) {
    this.#freeInputs = Array.from({ length: model.capacity.inputs }, (_, index) => index);
  }

  /** Counts of the moment, for metrics and tests. */
  get load(): { admitted: number; waiting: Record<Lane, number>; runsInFlight: number } {
    return { admitted: this.#admitted, waiting: { request: this.#lanes.request.length, stream: this.#lanes.stream.length }, runsInFlight: this.#runsInFlight };
  }

  /**
   * Admits one request to the request lane, or throws QueueFullError at once. The returned
   * function ends the admission (call it once, when the request is done).
   */
  admit(): () => void {
    if (this.#admitted >= this.settings.maxAdmitted) throw new QueueFullError(this.settings.maxAdmitted);
    this.#admitted++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#admitted--;
    };
  }

  /** Waits for a free input buffer in `lane`'s turn. */
  async acquire(lane: Lane, signal: AbortSignal): Promise<ModelTurn> {
    const input = this.#freeInputs.pop() ?? (await this.#lanes[lane].wait(signal));
    return this.#turn(input, lane);
  }

  /**
   * Runs `work` on the model (a model of any role: the model's own call, e.g. a plate reader's
   * `read`) in `lane`'s turn and a run slot, like a detection: `alone` says that no other run of
   * the model is in flight or wanted.
   */
  async run<Result>(lane: Lane, signal: AbortSignal, work: (alone: boolean) => Promise<Result>): Promise<Result> {
    const turn = await this.acquire(lane, signal);
    try {
      return await this.#inRunSlot(signal, work);
    } finally {
      turn.release();
    }
  }

  #turn(input: number, lane: Lane): ModelTurn {
    let released = false;
    if (lane === 'stream') this.#streamTurns++;
    return {
      detect: (image, options, signal) => this.#detect(input, image, options, signal),
      release: () => {
        if (released) return;
        released = true;
        if (lane === 'stream') this.#streamTurns--;
        this.#releaseInput(input);
      },
    };
  }

  /** Calls that want the model now: admitted requests, and stream frames holding or awaiting a turn. */
  #demand(): number {
    return this.#admitted + this.#streamTurns + this.#lanes.stream.length;
  }

  #canStartRun(): boolean {
    return !this.#runningAlone && this.#runsInFlight < this.model.capacity.runs;
  }

  /** Resolves once a run slot is this caller's. */
  async #takeRunSlot(signal: AbortSignal): Promise<void> {
    if (this.#canStartRun()) this.#runsInFlight++;
    else await this.#runQueue.wait(signal); // the slot was counted by #endRun, which granted it
  }

  #endRun(alone: boolean): void {
    if (alone) this.#runningAlone = false;
    this.#runsInFlight--;
    while (this.#runQueue.length > 0 && this.#canStartRun()) {
      this.#runsInFlight++;
      this.#runQueue.grant();
    }
  }

  /** Runs `work` once a run slot is this caller's, counted for the model's metrics. */
  async #inRunSlot<Result>(signal: AbortSignal, work: (alone: boolean) => Promise<Result>): Promise<Result> {
    await this.#takeRunSlot(signal);
    // Alone: no other run in flight and no other call wanting the model, so this run may take
    // every thread (shortest latency); with company, runs go side by side (most images per second).
    const alone = this.#runsInFlight === 1 && this.#demand() <= 1;
    if (alone) this.#runningAlone = true;
    const started = performance.now();
    try {
      return await work(alone);
    } finally {
      this.settings.onRun?.(this.model, performance.now() - started);
      this.#endRun(alone);
    }
  }

  async #detect(input: number, image: RgbImage, options: PostprocessOptions, signal: AbortSignal): Promise<SchedulerResult> {
    const detector: ServedModel = this.model;
    if (!isDetector(detector)) throw new Error(`model ${detector.name} is a ${detector.role}: its scheduler runs it with run(), not detect()`);
    const started = performance.now();
    const preprocessed = detector.preprocess(image, input);
    const preprocessDone = performance.now();
    return this.#inRunSlot(signal, async (alone) => {
      const runStarted = performance.now();
      const output = await detector.inference(preprocessed, alone);
      const inferenceDone = performance.now();
      const detections = detector.postprocess(output, preprocessed, options);
      const preprocessInRun = output.preprocessMs ?? 0;
      return {
        detections,
        runWaitMs: runStarted - preprocessDone,
        timings: {
          preprocess: preprocessDone - started + preprocessInRun,
          inference: inferenceDone - runStarted - preprocessInRun,
          postprocess: performance.now() - inferenceDone,
        },
      };
    });
  }

  #releaseInput(input: number): void {
    const { request, stream } = this.#lanes;
    const next: Lane | undefined =
      request.length > 0 && stream.length > 0 ? (this.#lastServed === 'request' ? 'stream' : 'request') : request.length > 0 ? 'request' : stream.length > 0 ? 'stream' : undefined;
    if (next) {
      this.#lastServed = next;
      this.#lanes[next].grant(input);
    } else {
      this.#freeInputs.push(input);
    }
  }
}
