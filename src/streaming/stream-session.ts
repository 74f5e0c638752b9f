import type { Logger } from 'pino';
import type { Service } from '../core/service.js';
import { type CallContext, newCallContext, type Stage, type StageTimings } from '../core/call-context.js';
import type { CallRecorder } from '../core/call-recorder.js';
import type { ErrorCatalogue } from '../core/error-catalogue.js';
import { DetectdError } from '../core/errors.js';
import type { AnalysisLimits } from '../core/pipeline.js';
import type { RoleModel } from '../models/role-models.js';
import { type ModelScheduler, type ModelTurn, WaitAbortedError } from '../scheduler/model-scheduler.js';
import type { Finding } from '../tasks/finding.js';
import { runTask } from '../tasks/run-task.js';
import type { FindingRecord, Task } from '../tasks/task.js';
import { LatestFrameSlot } from './latest-frame.js';
import { type StateChange, SettledStates } from './state-changes.js';
import type { StreamMetrics } from './stream-metrics.js';
import { IouTracker } from './tracker.js';
import { type TrackAnswer, TrackVotes } from './track-votes.js';

/** The client's name for a frame; the frame's sequence number when it named none. */
export type FrameId = number | string;

/** One frame as a protocol hands it to the engine. */
export interface StreamFrame {
  readonly frameId?: FrameId;
  /** The camera the frame is of (`source_id`), echoed with the result; what a task keeps per camera (a states service's regions) is that camera's. */
  readonly sourceId?: string;
  /** Image bytes, or base64 still to decode (decoded only if the frame is analysed, not dropped). */
  readonly payload: Buffer | string;
  /** The stream task's parameters (Task.parseParameters), opaque to the engine. */
  readonly parameters: unknown;
}

/** A finding as a stream answers it. */
export interface StreamFinding extends Finding {
  /** Its track on the stream, where it is a place in the image (the task gave the detection it follows); a finding about the whole image has none. */
  track_id?: number;
  /** The answer its track's frames decided by vote (a face's name, a plate's text), for the tasks whose findings vote (FindingRecord.vote). */
  track?: TrackAnswer;
  /** The state its frames settled on (FindingRecord.reading: a region's), for a finding that reads one; absent until one has settled. */
  settled_state?: string;
}

/** A finding that is a place in the image, with its track. */
type TrackedObject = StreamFinding & { track_id: number };

/** Milliseconds: `wait` from receipt to the start of analysis, each stage, and `total` from receipt to the answer. */
export interface FrameTimings {
  wait: number;
  decode: number;
  preprocess: number;
  inference: number;
  postprocess: number;
  tracking: number;
  encode: number;
  total: number;
}

interface OutcomeBase {
  readonly frameId: FrameId;
  readonly sourceId?: string;
  readonly sequence: number;
}

export interface AnalysedFrame extends OutcomeBase {
  readonly kind: 'result';
  readonly width: number;
  readonly height: number;
  /** Frames received since the previous result and skipped because a newer one arrived. */
  readonly dropped: number;
  /** What the task found (its `answerField`), each place in the image with its track id. */
  readonly found: StreamFinding[];
  /** The states that settled anew with this frame (its findings' readings, streaming/state-changes.ts), of the frame's source. */
  readonly changes: readonly StateChange[];
  /** The frame with every box drawn (base64 JPEG), when the frame's parameters ask for it. */
  readonly visualizedImage?: string;
  readonly timings: FrameTimings;
}

export interface FailedFrame extends OutcomeBase {
  readonly kind: 'error';
  readonly error: DetectdError;
}

export type FrameOutcome = AnalysedFrame | FailedFrame;

export interface StreamSessionOptions {
  readonly streamId: string;
  /** The protocol, for logs and metrics: `stream-json`, `stream-nvision`. */
  readonly transport: string;
  readonly service: Service;
  /** What the stream's frames are analysed for: the engine knows a task only by this interface. */
  readonly task: Task;
  /**
   * The gate's check of one frame against the service's rate limit and quota (it counts the frame,
   * and writes its time into `timings`); throws the refusal, a DetectdError, which becomes that
   * frame's error while the stream goes on.
   */
  readonly admitFrame: (timings: StageTimings) => Promise<void>;
  /**
   * The model's scheduler, shared with every stream and request on it. A stream takes its newest
   * frame only once it has a turn, so a frame never goes stale in the model's queue.
   */
  readonly scheduler: ModelScheduler<RoleModel>;
  readonly analysisLimits: AnalysisLimits;
  /** Each analysed frame is one call: logged (debug), measured, and counted in its service's usage. */
  readonly calls: CallRecorder;
  /** Every error code with its status (a refused frame's call is recorded under its status): the core's and the features'. */
  readonly errors: ErrorCatalogue;
  readonly metrics: StreamMetrics;
  readonly logger: Logger;
}

interface PendingFrame {
  readonly frame: StreamFrame;
  readonly sequence: number;
  /** performance.now() at receipt: where the frame's latency starts. */
  readonly receivedAt: number;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * The engine of one video stream, whatever protocol carries it: takes frames, keeps only the
 * newest waiting one, analyses it through the core pipeline on a stream turn of the model's
 * scheduler, tracks objects across frames, records each frame as a call, and hands each outcome
 * to `deliver`. One frame at a time: the next is taken only once the previous outcome has been
 * delivered (written to the socket), so neither frames nor results pile up in memory.
 */
export class StreamSession {
  readonly #options: StreamSessionOptions;
  readonly #deliver: (outcome: FrameOutcome) => Promise<void>;
  readonly #slot = new LatestFrameSlot<PendingFrame>();
  readonly #tracker = new IouTracker();
  readonly #votes = new TrackVotes();
  readonly #states = new SettledStates();
  readonly #ended = new AbortController();
  readonly #openedAt = performance.now();
  #sequence = 0;
  #droppedSinceResult = 0;
  #work: Promise<void> = Promise.resolve();
  #busy = false;
  readonly #counts = { analysed: 0, dropped: 0, failed: 0, cancelled: 0 };

  constructor(options: StreamSessionOptions, deliver: (outcome: FrameOutcome) => Promise<void>) {
    this.#options = options;
    this.#deliver = deliver;
    options.logger.info({ stream_id: options.streamId, transport: options.transport, service_id: options.service.id, model: options.scheduler.model.name }, 'stream opened');
  }

  /** A frame of this stream is being analysed or delivered. */
  get busy(): boolean {
    return this.#busy;
  }

  /** Takes a frame; it replaces any frame still waiting (counted as dropped). Returns its sequence number. */
  offer(frame: StreamFrame): number {
    const sequence = ++this.#sequence;
    this.#slot.offer({ frame, sequence, receivedAt: performance.now() });
    this.#takeNext();
    return sequence;
  }

  /**
   * The stream is over (`how`: the close code or reason, for the log): waiting frames are
   * forgotten, a frame in work finishes or is cancelled; settles once none is in work.
   */
  async end(how: number | string): Promise<void> {
    if (!this.#ended.signal.aborted) {
      this.#ended.abort();
      const waiting = this.#slot.take();
      if (waiting) {
        this.#countDropped(waiting.dropped);
        this.#count('cancelled');
      }
    }
    await this.#work;
    this.#logEnd(how);
  }

  #count(fate: 'analysed' | 'failed' | 'cancelled'): void {
    this.#counts[fate]++;
    this.#options.metrics.frames(this.#options.transport, fate);
  }

  #countDropped(dropped: number): void {
    this.#counts.dropped += dropped;
    this.#options.metrics.frames(this.#options.transport, 'dropped', dropped);
  }

  /** Starts analysing the waiting frame unless one is already in work. */
  #takeNext(): void {
    if (this.#busy || this.#ended.signal.aborted || !this.#slot.hasFrame) return;
    this.#busy = true;
    this.#work = this.#analyseNewest()
      .then(async (outcome) => {
        if (!outcome) return;
        await this.#deliver(outcome);
        if (outcome.kind === 'result') this.#options.metrics.answered(this.#options.transport, this.#options.scheduler.model.name, outcome.timings.total);
      })
      .catch((error: unknown) => this.#options.logger.error({ stream_id: this.#options.streamId, err: error }, 'stream delivery failed'))
      .finally(() => {
        this.#busy = false;
        this.#takeNext();
      });
  }

  /**
   * Passes the gate's frame check, waits for a turn at the model, then analyses the newest frame;
   * undefined when the stream ended meanwhile. A frame the gate refuses is answered with its error.
   */
  async #analyseNewest(): Promise<FrameOutcome | undefined> {
    const gateTimings: StageTimings = {};
    const refusal = await this.#options.admitFrame(gateTimings).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (refusal !== undefined) return this.#refuseNewest(refusal, gateTimings);
    let turn: ModelTurn;
    try {
      turn = await this.#options.scheduler.acquire('stream', this.#ended.signal);
    } catch (error) {
      if (error instanceof WaitAbortedError) return undefined; // end() counted the waiting frame
      throw error;
    }
    try {
      const taken = this.#slot.take();
      if (!taken) return undefined;
      this.#droppedSinceResult += taken.dropped;
      this.#countDropped(taken.dropped);
      return await this.#analyse(taken.frame, turn, gateTimings);
    } finally {
      turn.release();
    }
  }

  /** The newest frame, refused by the gate before it reached the model: its error, recorded as its call. */
  #refuseNewest(refusal: unknown, gateTimings: StageTimings): FrameOutcome | undefined {
    if (!(refusal instanceof DetectdError)) throw refusal;
    const taken = this.#slot.take();
    if (!taken) return undefined;
    this.#droppedSinceResult += taken.dropped;
    this.#countDropped(taken.dropped);
    const { frame, sequence } = taken.frame;
    const identity: OutcomeBase = { frameId: frame.frameId ?? sequence, sourceId: frame.sourceId, sequence };
    const call = newCallContext(`${this.#options.streamId}#${sequence}`, taken.frame.receivedAt);
    Object.assign(call.timings, gateTimings);
    call.service = this.#options.service;
    call.errorCode = refusal.code;
    this.#count('failed');
    this.#record(call, identity);
    return { kind: 'error', ...identity, error: refusal };
  }

  async #analyse(pending: PendingFrame, turn: ModelTurn, gateTimings: StageTimings): Promise<FrameOutcome | undefined> {
    const { scheduler, analysisLimits, streamId, task, service } = this.#options;
    const { frame, sequence } = pending;
    const identity: OutcomeBase = { frameId: frame.frameId ?? sequence, sourceId: frame.sourceId, sequence };
    const started = performance.now();
    const call = newCallContext(`${streamId}#${sequence}`, pending.receivedAt);
    Object.assign(call.timings, gateTimings);
    call.service = service;
    call.model = scheduler.model.name;
    // A frame that waits longer than the deadline for the model is stale; ending the stream stops the wait too.
    const deadline = AbortSignal.timeout(analysisLimits.deadlineMs);
    const signal = AbortSignal.any([deadline, this.#ended.signal]);
    try {
      const labels = { frameId: String(identity.frameId), sourceId: frame.sourceId };
      const analysis = await runTask(task, frame.payload, frame.parameters, { service, scheduler, turn, limits: analysisLimits, signal, context: call, labels });
      const trackingStarted = performance.now();
      // The tracker follows the places in the image; a finding about the whole image has no track.
      const placed = analysis.found.flatMap((record) => (record.tracked ? [{ record, tracked: record.tracked }] : []));
      const trackIds = this.#tracker.update(placed.map((each) => each.tracked), sequence);
      const trackOf = new Map(placed.map((each, index) => [each.record, trackIds[index]]));
      const source = frame.sourceId ?? '';
      const changes = this.#states.read(source, analysis.found.flatMap((record) => record.reading ?? []));
      const found = analysis.found.map((record) => {
        const trackId = trackOf.get(record);
        const finding = trackId === undefined ? record.finding : this.#tracked(record, trackId);
        return record.reading ? { ...finding, settled_state: this.#states.settled(source, record.reading.subject) } : finding;
      });
      this.#votes.keepOnly(this.#tracker.liveTracks());
      call.timings.tracking = performance.now() - trackingStarted;
      // A stage the task has none of (no visualization to encode, a task without a model) took no time.
      const stage = (name: Stage) => round(call.timings[name] ?? 0);
      const timings: FrameTimings = {
        wait: round(started - pending.receivedAt),
        decode: stage('decode'),
        preprocess: stage('preprocess'),
        inference: stage('inference'),
        postprocess: stage('postprocess'),
        tracking: stage('tracking'),
        encode: stage('encode'),
        total: round(performance.now() - pending.receivedAt),
      };
      const dropped = this.#droppedSinceResult;
      this.#droppedSinceResult = 0;
      this.#count('analysed');
      this.#record(call, identity);
      return {
        kind: 'result',
        ...identity,
        width: analysis.width,
        height: analysis.height,
        dropped,
        found,
        changes,
        visualizedImage: analysis.visualizedImage,
        timings,
      };
    } catch (thrown) {
      // A bug costs only its frame too: logged in full, answered as internal_error (the stream id finds it).
      if (!(thrown instanceof DetectdError)) this.#options.logger.error({ stream_id: streamId, sequence, err: thrown }, 'stream frame failed');
      const error = thrown instanceof DetectdError ? thrown : new DetectdError('internal_error', 'internal error; quote the stream id when reporting it');
      if (this.#ended.signal.aborted && !deadline.aborted) {
        // The client closed the stream (the demo's Stop) while this frame waited: nobody is left to answer, and it is no error of theirs.
        this.#count('cancelled');
        return undefined;
      }
      // A bad frame costs only itself: the stream goes on with the next one.
      call.errorCode = error.code;
      this.#count('failed');
      this.#record(call, identity);
      return { kind: 'error', ...identity, error };
    }
  }

  /** A finding with its track id and, when it votes, its track's answer counting its vote: weighed by its box's area, so a near, large view outvotes a far one. */
  #tracked({ finding, vote }: FindingRecord, trackId: number): TrackedObject {
    const box = finding.bounding_box;
    if (vote === undefined || box === undefined) return { ...finding, track_id: trackId };
    const weight = (box.right - box.left) * (box.bottom - box.top) * vote.confidence;
    return { ...finding, track_id: trackId, track: this.#votes.vote(trackId, { answer: vote.answer, weight, known: finding.known }) };
  }

  #record(call: CallContext, identity: OutcomeBase): void {
    this.#options.calls.record(call, {
      transport: this.#options.transport,
      status: call.errorCode ? this.#options.errors.status(call.errorCode) : 200,
      abandoned: false,
      fields: { stream_id: this.#options.streamId, frame_id: identity.frameId, sequence: identity.sequence },
      logLevel: 'debug',
    });
  }

  #logEnd(how: number | string): void {
    const { logger, streamId, service, scheduler, transport } = this.#options;
    logger.info(
      {
        stream_id: streamId,
        transport,
        service_id: service.id,
        model: scheduler.model.name,
        close_code: how,
        frames_received: this.#sequence,
        frames_processed: this.#counts.analysed,
        frames_dropped: this.#counts.dropped,
        frames_cancelled: this.#counts.cancelled,
        frame_errors: this.#counts.failed,
        duration_ms: Math.round(performance.now() - this.#openedAt),
      },
      'stream closed',
    );
  }
}
