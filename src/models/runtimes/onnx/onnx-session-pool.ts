import type { Worker } from 'node:worker_threads';
import type { RgbImage } from '../../../vision/image.js';
import type { RawOutput } from '../../types.js';
import type { CloseRequest, InputLayout, RunRequest, SessionPlan, SessionSignature, SessionWorkerData, SessionWorkerMessage } from './onnx-session-protocol.js';
import { InferenceWorkerLost } from '../../inference-worker-lost.js';
import { moduleUrl, startWorker } from '../worker-thread.js';

const ENTRY = moduleUrl('./onnx-session-entry', import.meta.url);

export interface PoolPlan {
  /** Intra-op threads of a run that has the model to itself. */
  readonly threads: number;
  /** Runs at once, each in its own worker thread. */
  readonly concurrency: number;
}

interface PendingRun {
  readonly resolve: (output: RawOutput) => void;
  readonly reject: (error: Error) => void;
}

/** One worker thread, its sessions, and the runs it has been sent. */
class SessionWorker {
  readonly pending = new Map<number, PendingRun>();
  /** Resolves with the model's signature once the sessions are open; rejects if the worker stops first. */
  readonly ready: Promise<SessionSignature>;
  readonly exited: Promise<void>;
  /** Resolves once the sessions are open or the thread has stopped, whichever first: ONNX Runtime is done opening. */
  readonly settled: Promise<void>;
  /** `close` was asked for: the exit that follows is expected. */
  closing = false;

  constructor(
    readonly thread: Worker,
    /** Called once if the thread stops by itself, after every pending run was rejected. */
    onLost: (error: Error) => void,
  ) {
    this.exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    const opened = new Promise<void>((resolve) => thread.on('message', (message: SessionWorkerMessage) => message.type === 'ready' && resolve()));
    this.settled = Promise.race([opened, this.exited]);
    this.ready = new Promise((resolve, reject) => {
      thread.on('message', (message: SessionWorkerMessage) => {
        if (message.type === 'ready') return resolve(message.signature);
        const run = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.type === 'output') run?.resolve(message.output);
        else run?.reject(new Error(message.message));
      });
      let lost: Error | undefined;
      const stop = (error: Error) => {
        if (lost || this.closing) return;
        lost = error;
        reject(error);
        for (const run of this.pending.values()) run.reject(new InferenceWorkerLost(error));
        this.pending.clear();
        onLost(error);
      };
      thread.on('error', stop);
      thread.on('exit', (code) => stop(new Error(`inference worker exited with code ${code}`)));
    });
    // A worker lost after start-up is reported through its runs and onLost, not as an unhandled rejection.
    this.ready.catch(() => {});
  }

  get inFlight(): number {
    return this.pending.size;
  }
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
  readonly #workers: SessionWorker[];
  #nextId = 0;
  /** How many sessions each worker opened. */
  readonly #sessionsPerWorker: readonly number[];
  /** Session index, in the first worker, of runs alone: the all-threads session where there is one. */
  readonly #aloneSession: number;

  private constructor(
    workers: SessionWorker[],
    layout: readonly SessionPlan[][],
    readonly signature: SessionSignature,
  ) {
    this.#workers = workers;
    this.#sessionsPerWorker = layout.map((sessions) => sessions.length);
    this.#aloneSession = layout[0].length - 1;
  }

  /** Starts the workers and opens their sessions; throws ONNX Runtime's words when the model cannot be opened. */
  static async open(modelPath: string, plan: PoolPlan, logger: (message: string) => void): Promise<OnnxSessionPool> {
    const layout = sessionLayout(plan);
    const workers: SessionWorker[] = [];
    // A worker that stops later is replaced in its place, with the same sessions; runs sent to
    // the replacement wait in its message queue until its sessions are open.
    const start = (index: number): SessionWorker =>
      new SessionWorker(startWorker(ENTRY, { modelPath, sessions: layout[index] } satisfies SessionWorkerData), (error) => {
        logger(`inference worker ${index} of ${modelPath} stopped (${error.message}); restarting it`);
        workers[index] = start(index);
      });
    workers.push(...layout.map((_, index) => start(index)));
    try {
      const signatures = await Promise.all(workers.map((worker) => worker.ready));
      return new OnnxSessionPool(workers, layout, signatures[0]);
    } catch (error) {
      for (const worker of workers) worker.closing = true;
      // Terminated only once none is still inside ONNX Runtime opening its sessions: a worker terminated in the
      // addon's native code aborts the whole process (a C++ exception it cannot hand to a JavaScript that is gone).
      await Promise.all(workers.map((worker) => worker.settled));
      await Promise.all(workers.map((worker) => worker.thread.terminate()));
      throw error;
    }
  }

  /**
   * Runs a small grey image once on every session (ORT's first run of a session is slow) and
   * returns the last output: its shape tells the model's family, whose letterbox the runs then use.
   */
  async warmUp(layout: InputLayout, dims: readonly number[]): Promise<RawOutput> {
    const side = 64;
    const image = { width: side, height: side, data: Buffer.alloc(side * side * 3, 114) };
    let output: RawOutput = { tensors: [] };
    for (const [index, sessions] of this.#sessionsPerWorker.entries()) {
      for (let session = 0; session < sessions; session++) output = await this.#send(this.#workers[index], session, image, layout, dims);
    }
    return output;
  }

  /**
   * Letterboxes (or stretches) `image` into the model's input and runs it, in a worker thread; the caller leaves
   * the pixels alone until the output arrives. `alone`: no other run is in flight or will start
   * before this one ends.
   */
  run(image: RgbImage, layout: InputLayout, dims: readonly number[], alone: boolean): Promise<RawOutput> {
    if (alone) return this.#send(this.#workers[0], this.#aloneSession, image, layout, dims);
    const idlest = this.#workers.reduce((best, worker) => (worker.inFlight < best.inFlight ? worker : best));
    return this.#send(idlest, 0, image, layout, dims);
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
    await Promise.all(
      this.#workers.map(async (worker) => {
        worker.closing = true;
        worker.thread.postMessage({ type: 'close' } satisfies CloseRequest);
        await worker.exited;
      }),
    );
  }
}
