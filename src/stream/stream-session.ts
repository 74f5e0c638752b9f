import type { Logger } from 'pino';
import { type CallContext, newCallContext } from '../core/call-context.js';
import type { CallRecorder } from '../core/call-recorder.js';
import { ERROR_CATALOGUE } from '../core/errors.js';
import type { RawData, WebSocket } from 'ws';
import type { Service } from '../accounts/service.js';
import { type DetectionParameters, parseConfigurations } from '../tasks/object-detection/parameters.js';
import { DetectdError, errorBody } from '../core/errors.js';
import type { AnalysisLimits } from '../core/pipeline.js';
import { detectObjects } from '../tasks/object-detection/object-detection-task.js';
import { decodeRawData } from '../tasks/object-detection/raw-data.js';
import type { SchemaCatalogue } from '../core/schema-catalogue.js';
import type { StreamSettings } from '../config.js';
import { type ModelScheduler, type ModelTurn, WaitAbortedError } from '../scheduler/model-scheduler.js';
import { LatestFrameSlot } from './latest-frame.js';
import { type ClientMessage, CLOSE_CODES, type FrameId, type ResultTimings, type ServerMessage } from './protocol.js';
import { IouTracker } from './tracker.js';

export interface StreamSessionOptions {
  readonly streamId: string;
  readonly service: Service;
  /**
   * The model's scheduler, shared with every stream and request on it. A stream takes its newest
   * frame only once it has a turn, so a frame never goes stale in the model's queue.
   */
  readonly model: ModelScheduler;
  readonly schemas: SchemaCatalogue;
  readonly settings: StreamSettings;
  readonly analysisLimits: AnalysisLimits;
  /** Each analysed frame is one call: logged (debug), measured, and counted in its service's usage. */
  readonly calls: CallRecorder;
  readonly logger: Logger;
}

interface PendingFrame {
  readonly frameId: FrameId;
  readonly sequence: number;
  /** performance.now() at receipt: where the frame's latency starts. */
  readonly receivedAt: number;
  /** Image bytes, or base64 still to decode (decoded only if the frame is analysed, not dropped). */
  readonly payload: Buffer | string;
}

const MAX_CLOSE_REASON_BYTES = 123; // RFC 6455: a close frame's payload is at most 125 bytes, 2 of them the code

function closeReason(message: string): string {
  const bytes = Buffer.from(message);
  if (bytes.length <= MAX_CLOSE_REASON_BYTES) return message;
  // Cut on a character boundary: a partial UTF-8 sequence would make the close frame invalid.
  return new TextDecoder().decode(bytes.subarray(0, MAX_CLOSE_REASON_BYTES - 3)).replace(/\uFFFD$/, '') + '...';
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * One open video stream: reads `start` and frames, keeps only the newest waiting frame, runs it
 * through the same decode → model → response stages as the image API, tracks objects across
 * frames and answers each analysed frame with a `result`. One frame at a time per stream: the
 * next is taken only once the previous result has been written to the socket, so neither
 * frames nor results pile up in memory.
 */
export class StreamSession {
  /** Settles once the socket is closed and no frame of this stream is in work any more. */
  readonly finished: Promise<void>;
  readonly #socket: WebSocket;
  readonly #options: StreamSessionOptions;
  readonly #slot = new LatestFrameSlot<PendingFrame>();
  readonly #tracker = new IouTracker();
  readonly #closed = new AbortController();
  readonly #heartbeat: NodeJS.Timeout;
  readonly #openedAt = performance.now();
  #idleTimer: NodeJS.Timeout | undefined;
  #parameters: DetectionParameters | undefined;
  /** Frame id announced by a header message for the next binary message. */
  #nextBinaryFrameId: FrameId | undefined;
  #sequence = 0;
  #droppedSinceResult = 0;
  #work: Promise<void> = Promise.resolve();
  #busy = false;
  #answeredPing = true;
  readonly #counts = { processed: 0, dropped: 0, frameErrors: 0 };

  constructor(socket: WebSocket, options: StreamSessionOptions) {
    this.#socket = socket;
    this.#options = options;
    socket.on('message', (data, isBinary) => this.#receive(data, isBinary));
    socket.on('pong', () => (this.#answeredPing = true));
    // Socket errors (a message over the size limit, a protocol violation) are followed by 'close'; the close line logs them.
    socket.on('error', (error) => options.logger.debug({ stream_id: options.streamId, err: error }, 'stream socket error'));
    const closed = new Promise<{ code: number }>((resolve) => socket.once('close', (code) => resolve({ code })));
    this.#heartbeat = setInterval(() => this.#ping(), options.settings.pingIntervalMs);
    this.#armIdleTimer();
    this.finished = closed.then(async ({ code }) => {
      this.#closed.abort();
      clearInterval(this.#heartbeat);
      clearTimeout(this.#idleTimer);
      await this.#work;
      this.#logClose(code);
    });
    options.logger.info({ stream_id: options.streamId, service_id: options.service.id, model: options.model.detector.name }, 'stream opened');
  }

  /** Ends the stream with `code`; in-flight work finishes, then `finished` settles. */
  close(code: number, reason: string): void {
    this.#socket.close(code, closeReason(reason));
  }

  /** Cuts the connection without a closing handshake (a peer that does not answer). */
  terminate(): void {
    this.#socket.terminate();
  }

  #receive(data: RawData, isBinary: boolean): void {
    // Messages still arriving after the server decided to close are ignored.
    if (this.#socket.readyState !== this.#socket.OPEN) return;
    this.#armIdleTimer();
    try {
      if (isBinary) {
        const frameId = this.#nextBinaryFrameId;
        this.#nextBinaryFrameId = undefined;
        this.#receiveFrame(frameId, data as Buffer);
      } else {
        this.#receiveText(String(data));
      }
    } catch (error) {
      if (error instanceof DetectdError) {
        // The protocol was broken: say why in full, then close with a short reason.
        void this.#send({ type: 'error', ...errorBody(error, this.#options.streamId) });
        this.close(CLOSE_CODES.badMessage, error.message);
      } else {
        this.#failed(error);
      }
    }
  }

  #failed(error: unknown): void {
    this.#options.logger.error({ stream_id: this.#options.streamId, err: error }, 'stream failed');
    this.close(CLOSE_CODES.internalError, 'internal error; quote the stream id when reporting it');
  }

  #receiveText(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      throw new DetectdError('invalid_json', 'a text message is not valid JSON');
    }
    const validity = this.#options.schemas.check('stream-client-message', message);
    if (!validity.ok) throw new DetectdError('invalid_request', validity.problem);
    const parsed = message as ClientMessage;
    if (parsed.type === 'start') return this.#start(parsed.configurations);
    if (parsed.raw_data === undefined) this.#nextBinaryFrameId = parsed.frame_id;
    else this.#receiveFrame(parsed.frame_id, parsed.raw_data);
  }

  #start(configurations: { parameter: string; value: string }[] | undefined): void {
    if (this.#parameters) throw new DetectdError('invalid_request', 'the stream has already started; open a new stream to change its configuration');
    this.#parameters = parseConfigurations(configurations, 'v1');
    const { settings, model, streamId } = this.#options;
    void this.#send({
      type: 'ready',
      stream_id: streamId,
      model: model.detector.name,
      limits: { max_frame_bytes: settings.maxFrameBytes, max_frame_pixels: settings.maxFramePixels, idle_timeout_ms: settings.idleTimeoutMs },
    });
  }

  #receiveFrame(frameId: FrameId | undefined, payload: Buffer | string): void {
    if (!this.#parameters) throw new DetectdError('invalid_request', 'send a "start" message before the first frame');
    const sequence = ++this.#sequence;
    this.#slot.offer({ frameId: frameId ?? sequence, sequence, receivedAt: performance.now(), payload });
    this.#takeNext();
  }

  /** Starts analysing the waiting frame unless one is already in work. */
  #takeNext(): void {
    if (this.#busy || this.#closed.signal.aborted || !this.#slot.hasFrame) return;
    this.#busy = true;
    this.#work = this.#analyseNewest()
      .then((message) => message && this.#send(message))
      .catch((error: unknown) => this.#failed(error))
      .finally(() => {
        this.#busy = false;
        this.#takeNext();
      });
  }

  /** Waits for a turn at the model, then analyses the newest frame; undefined when the stream closed meanwhile. */
  async #analyseNewest(): Promise<ServerMessage | undefined> {
    let turn: ModelTurn;
    try {
      turn = await this.#options.model.acquire('stream', this.#closed.signal);
    } catch (error) {
      if (error instanceof WaitAbortedError) return undefined;
      throw error;
    }
    try {
      const { frame, dropped } = this.#slot.take()!;
      this.#droppedSinceResult += dropped;
      this.#counts.dropped += dropped;
      return await this.#analyse(frame, turn);
    } finally {
      turn.release();
    }
  }

  async #analyse(frame: PendingFrame, turn: ModelTurn): Promise<ServerMessage> {
    const { model, analysisLimits } = this.#options;
    const started = performance.now();
    const trace = newCallContext(`${this.#options.streamId}#${frame.sequence}`, frame.receivedAt);
    trace.service = this.#options.service;
    trace.model = model.detector.name;
    // A frame that waits longer than the deadline for the model is stale; closing the stream stops the wait too.
    const signal = AbortSignal.any([AbortSignal.timeout(analysisLimits.deadlineMs), this.#closed.signal]);
    let message: ServerMessage;
    try {
      const bytes = typeof frame.payload === 'string' ? decodeRawData(frame.payload) : frame.payload;
      const { analysis, response } = await detectObjects({ bytes, model, limits: analysisLimits, signal, turn }, this.#parameters!, trace.timings);
      const trackingStarted = performance.now();
      const trackIds = this.#tracker.update(analysis.detections, frame.sequence);
      const tracking = performance.now() - trackingStarted;
      const { detected_objects, visualized_image } = response;
      const timings: ResultTimings = {
        wait: round(started - frame.receivedAt),
        decode: round(trace.timings.decode),
        preprocess: round(trace.timings.preprocess),
        inference: round(trace.timings.inference),
        postprocess: round(trace.timings.postprocess),
        tracking: round(tracking),
        encode: round(trace.timings.encode),
        total: round(performance.now() - frame.receivedAt),
      };
      message = {
        type: 'result',
        frame_id: frame.frameId,
        sequence: frame.sequence,
        width: analysis.image.width,
        height: analysis.image.height,
        dropped: this.#droppedSinceResult,
        detected_objects: detected_objects.map((object, index) => ({ ...object, track_id: trackIds[index] })),
        visualized_image,
        timings,
      };
      this.#droppedSinceResult = 0;
      this.#counts.processed++;
      trace.objects = detected_objects.length;
      this.#recordCall(trace, frame);
    } catch (error) {
      if (!(error instanceof DetectdError)) throw error;
      // A bad frame costs only itself: the stream goes on with the next one.
      this.#counts.frameErrors++;
      message = { type: 'error', frame_id: frame.frameId, ...errorBody(error, this.#options.streamId) };
      trace.errorCode = error.code;
      this.#recordCall(trace, frame);
    }
    return message;
  }

  #recordCall(call: CallContext, frame: PendingFrame): void {
    this.#options.calls.record(call, {
      transport: 'stream-json',
      status: call.errorCode ? ERROR_CATALOGUE[call.errorCode].status : 200,
      abandoned: false,
      fields: { stream_id: this.#options.streamId, frame_id: frame.frameId, sequence: frame.sequence },
      logLevel: 'debug',
    });
  }


  /** Resolves once the message is handed to the OS (or the socket is gone): the stream's back-pressure. */
  #send(message: ServerMessage): Promise<void> {
    return new Promise((resolve) => this.#socket.send(JSON.stringify(message), () => resolve()));
  }

  #ping(): void {
    if (!this.#answeredPing) {
      // No pong since the last ping: the peer is gone without closing; free its resources now.
      this.terminate();
      return;
    }
    this.#answeredPing = false;
    this.#socket.ping();
  }

  #armIdleTimer(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      // A client waiting for a slow result is not idle.
      if (this.#busy) return this.#armIdleTimer();
      this.close(CLOSE_CODES.idle, `no message for ${this.#options.settings.idleTimeoutMs} ms`);
    }, this.#options.settings.idleTimeoutMs);
  }

  #logClose(code: number): void {
    const { logger, streamId, service, model } = this.#options;
    logger.info(
      {
        stream_id: streamId,
        service_id: service.id,
        model: model.detector.name,
        close_code: code,
        frames_received: this.#sequence,
        frames_processed: this.#counts.processed,
        frames_dropped: this.#counts.dropped,
        frame_errors: this.#counts.frameErrors,
        duration_ms: Math.round(performance.now() - this.#openedAt),
      },
      'stream closed',
    );
  }
}
