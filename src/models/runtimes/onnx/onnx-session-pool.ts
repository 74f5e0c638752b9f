import type { Worker } from 'node:worker_threads';
import type { RgbImage } from '../../../vision/image.js';
import type { RawOutput } from '../../types.js';
import type { CloseRequest, InputLayout, RunRequest, SessionPlan, SessionSignature, SessionWorkerData, SessionWorkerMessage } from './onnx-session-protocol.js';
import { InferenceWorkerLost } from '../../inference-worker-lost.js';
import { LoadedModelFile } from '../../loaded-model-file.js';
import { ModelFileUnavailable } from '../../model-file-unavailable.js';
import { modelNameOf } from '../../model-repository.js';
import { moduleUrl, startWorker } from '../worker-thread.js';

const ENTRY = moduleUrl('./onnx-session-entry', import.meta.url);

/** How often a worker that could not be restarted tries again: the model serves again at most this long after its file is back. */
const REOPEN_SECONDS = 2;

export interface PoolPlan {
  /** Intra-op threads of a run that has the model to itself. */
  readonly threads: number;
  /** Runs at once, each in its own worker thread. */
  readonly concurrency: number;
  /** The image input takes any height and width (onnx-free-input.ts), whatever the file declares. */
  readonly freeInputSize?: boolean;
}

interface PendingRun {
  readonly resolve: (output: RawOutput) => void;
  readonly reject: (error: Error) => void;
}

/** One worker thread, its sessions, and the runs it has been sent. */
class SessionWorker {
  readonly pending = new Map<number, PendingRun>();
  /** Resolves once the sessions are open; rejects with `openFailure` of the error if the worker stops first. */
  readonly ready: Promise<SessionSignature>;
  readonly exited: Promise<void>;
  /** Resolves once the sessions are open or the thread has stopped, whichever first: ONNX Runtime is done opening. */
  readonly settled: Promise<void>;
  /** `close` was asked for: the exit that follows is expected. */
  closing = false;

  constructor(
    readonly thread: Worker,
    /** Called once if the thread stops by itself after its sessions opened, after every pending run was rejected. */
    onLost: (error: Error) => void,
    /** What the runs sent to it meanwhile, and `ready`, fail with when it stops before its sessions are open. */
    openFailure: (error: Error) => Error = (error) => error,
  ) {
    this.exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    const opened = new Promise<void>((resolve) => thread.on('message', (message: SessionWorkerMessage) => message.type === 'ready' && resolve()));
    this.settled = Promise.race([opened, this.exited]);
    let isOpen = false;
    this.ready = new Promise((resolve, reject) => {
      thread.on('message', (message: SessionWorkerMessage) => {
        if (message.type === 'ready') {
          isOpen = true;
          return resolve(message.signature);
        }
        const run = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.type === 'output') run?.resolve(message.output);
        else run?.reject(new Error(message.message));
      });
      let lost = false;
      const stop = (error: Error) => {
        if (lost || this.closing) return;
        lost = true;
        const failure = isOpen ? new InferenceWorkerLost(error) : openFailure(error);
        for (const run of this.pending.values()) run.reject(failure);
        this.pending.clear();
        if (isOpen) onLost(error);
        else reject(failure);
      };
      thread.on('error', stop);
      thread.on('exit', (code) => stop(new Error(`inference worker exited with code ${code}`)));
    });
    // A worker that fails to open is reported through `ready`'s awaiter and its runs, not as an unhandled rejection.
    this.ready.catch(() => {});
  }

  get inFlight(): number {
    return this.pending.size;
  }
}

/** One place for a worker: its worker (open, or opening again), or why none can open; a restart under way. */
interface WorkerSlot {
  worker: SessionWorker | undefined;
  unavailable: ModelFileUnavailable | undefined;
  /** Settles when the restart under way has a worker opening, or has found it cannot. */
  restarting: Promise<void> | undefined;
  retry: NodeJS.Timeout | undefined;
}

/**
 * Sessions per worker. Runs beside each other share the threads: `concurrency` workers with
 * threads ÷ concurrency each (at least one). With more than one worker, the first also opens a
 * session with all the threads, for a run that has the model to itself: intra-op threads shorten
 * one run, while runs side by side in single-threaded sessions get the most images through
 * (docs/performance.md "Measured figures behind the code's choices").
 */
function sessionLayout({ threads, concurrency }: PoolPlan): SessionPlan[][] {
  if (concurrency === 1) return [[{ threads, spinning: true }]];
  const sharedThreads = Math.max(1, Math.floor(threads / concurrency));
  const shared: SessionPlan = { threads: sharedThreads, spinning: false };
  const first = threads > sharedThreads ? [shared, { threads, spinning: true }] : [shared];
  return [first, ...Array.from({ length: concurrency - 1 }, () => [shared])];
}

/**
 * ONNX Runtime sessions of one model in worker threads, so that neither the letterbox nor
 * inference blocks the event loop and several images can run at once. Which input runs when is
 * its model's scheduler's decision (every model of every role runs through one, src/scheduler/):
 * the pool is sent at most `concurrency` runs at once, and a run `alone` only when no other is.
 */
export class OnnxSessionPool {
  readonly #slots: WorkerSlot[];
  #nextId = 0;
  /** The sessions each worker opens. */
  readonly #layout: readonly SessionPlan[][];
  /** Session index, in the first worker, of runs alone: the all-threads session where there is one. */
  readonly #aloneSession: number;
  #closed = false;

  private constructor(
    workers: SessionWorker[],
    layout: readonly SessionPlan[][],
    readonly signature: SessionSignature,
    /** The file the sessions were opened from, as it was: a restarted worker must find the same model in it. */
    private readonly file: LoadedModelFile,
    private readonly logger: (message: string) => void,
    private readonly freeInputSize: boolean | undefined,
  ) {
    this.#slots = workers.map((worker) => ({ worker, unavailable: undefined, restarting: undefined, retry: undefined }));
    this.#layout = layout;
    this.#aloneSession = layout[0].length - 1;
  }

  /** Starts the workers and opens their sessions; throws ONNX Runtime's words when the model cannot be opened. */
  static async open(modelPath: string, plan: PoolPlan, logger: (message: string) => void): Promise<OnnxSessionPool> {
    const layout = sessionLayout(plan);
    let pool: OnnxSessionPool | undefined;
    // A worker that stops later is replaced in its place, with the same sessions, from the same file.
    const { freeInputSize } = plan;
    const workers = layout.map((sessions, index) => new SessionWorker(startWorker(ENTRY, { modelPath, sessions, freeInputSize } satisfies SessionWorkerData), (error) => pool?.lost(index, error)));
    try {
      const [signatures, file] = await Promise.all([Promise.all(workers.map((worker) => worker.ready)), LoadedModelFile.of(modelPath)]);
      pool = new OnnxSessionPool(workers, layout, signatures[0], file, logger, freeInputSize);
      return pool;
    } catch (error) {
      for (const worker of workers) worker.closing = true;
      // Terminated only once none is still inside ONNX Runtime opening its sessions: a worker terminated in the
      // addon's native code aborts the whole process (a C++ exception it cannot hand to a JavaScript that is gone).
      await Promise.all(workers.map((worker) => worker.settled));
      await Promise.all(workers.map((worker) => worker.thread.terminate()));
      throw error;
    }
  }

  /** The worker of slot `index` stopped by itself: it is started again at once. */
  private lost(index: number, error: Error): void {
    this.logger(`inference worker ${index} of ${this.file.path} stopped (${error.message}); restarting it`);
    this.#slots[index].worker = undefined;
    this.#restart(index);
  }

  /**
   * Starts slot `index`'s worker again, once the file still holds the model loaded from it. When it
   * does not (or the worker cannot open it), the slot is unavailable and tries again every
   * REOPEN_SECONDS; the model's unavailability and its return are each logged once, not per slot or try.
   */
  #restart(index: number): void {
    const slot = this.#slots[index];
    slot.retry = undefined;
    const unavailable = (error: ModelFileUnavailable) => {
      if (!this.#slots.some((other) => other.unavailable)) this.logger(`${error.message}; its calls get 503 model_unavailable until the file it was loaded from is back`);
      slot.unavailable = error;
      if (!this.#closed) slot.retry = setTimeout(() => this.#restart(index), REOPEN_SECONDS * 1000).unref();
    };
    const restarting = (async () => {
      const change = await this.file.change();
      if (this.#closed) return;
      if (change) return unavailable(new ModelFileUnavailable(this.file.path, change, REOPEN_SECONDS));
      const worker = new SessionWorker(
        startWorker(ENTRY, { modelPath: this.file.path, sessions: this.#layout[index], freeInputSize: this.freeInputSize } satisfies SessionWorkerData),
        (error) => this.lost(index, error),
        (error) => new ModelFileUnavailable(this.file.path, `cannot be opened (${error.message})`, REOPEN_SECONDS),
      );
      slot.worker = worker;
      void worker.ready.then(
        () => {
          if (!slot.unavailable) return;
          slot.unavailable = undefined;
          if (!this.#slots.some((other) => other.unavailable)) this.logger(`the file of model ${modelNameOf(this.file.path)} is back (${this.file.path}): it runs again`);
        },
        (error: ModelFileUnavailable) => {
          if (slot.worker === worker) slot.worker = undefined;
          unavailable(error);
        },
      );
    })();
    slot.restarting = restarting;
    void restarting.finally(() => {
      if (slot.restarting === restarting) slot.restarting = undefined;
    });
  }

  /**
   * Runs a small grey image once on every session (ORT's first run of a session is slow) and
   * returns the last output: its shape tells the model's family, whose letterbox the runs then use.
   */
  async warmUp(layout: InputLayout, dims: readonly number[]): Promise<RawOutput> {
    const side = 64;
    const image = { width: side, height: side, data: Buffer.alloc(side * side * 3, 114) };
    let output: RawOutput = { tensors: [] };
    for (const [index, sessions] of this.#layout.entries()) {
      for (let session = 0; session < sessions.length; session++) output = await this.#send(this.#slots[index].worker!, session, image, layout, dims);
    }
    return output;
  }

  /**
   * Letterboxes (or stretches) `image` into the model's input and runs it, in a worker thread; the caller leaves
   * the pixels alone until the output arrives. `alone`: no other run is in flight or will start
   * before this one ends.
   */
  async run(image: RgbImage, layout: InputLayout, dims: readonly number[], alone: boolean): Promise<RawOutput> {
    for (;;) {
      const first = this.#slots[0].worker;
      if (alone && first) return this.#send(first, this.#aloneSession, image, layout, dims);
      // A worker that could not be restarted takes no runs while another can; with none, a restart under way is
      // waited for, and without one, why none can run is the answer.
      const workers = this.#slots.flatMap((slot) => (slot.worker ? [slot.worker] : []));
      if (workers.length > 0) return this.#send(workers.reduce((best, worker) => (worker.inFlight < best.inFlight ? worker : best)), 0, image, layout, dims);
      const restarting = this.#slots.find((slot) => slot.restarting)?.restarting;
      if (!restarting) throw this.#slots.find((slot) => slot.unavailable)!.unavailable!;
      await restarting;
    }
  }

  #send(worker: SessionWorker, session: number, image: RgbImage, layout: InputLayout, dims: readonly number[]): Promise<RawOutput> {
    const id = this.#nextId++;
    return new Promise<RawOutput>((resolve, reject) => {
      worker.pending.set(id, { resolve, reject });
      // Pixels in shared memory are passed by reference; others are copied by postMessage.
      const request: RunRequest = { type: 'run', id, session, width: image.width, height: image.height, pixels: image.data, layout, dims };
      worker.thread.postMessage(request);
    });
  }

  /** Releases every session and ends the workers. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const slot of this.#slots) clearTimeout(slot.retry);
    await Promise.all(this.#slots.map((slot) => slot.restarting));
    await Promise.all(
      this.#slots.map(async ({ worker }) => {
        if (!worker) return;
        worker.closing = true;
        worker.thread.postMessage({ type: 'close' } satisfies CloseRequest);
        await worker.exited;
      }),
    );
  }
}
