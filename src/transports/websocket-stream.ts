import type { Logger } from 'pino';
import type { RawData, WebSocket } from 'ws';
import type { StreamSettings } from '../config.js';
import type { StageTimings } from '../core/call-context.js';
import type { CallRecorder } from '../core/call-recorder.js';
import type { ErrorCatalogue } from '../core/error-catalogue.js';
import { DetectdError } from '../core/errors.js';
import type { AnalysisLimits } from '../core/pipeline.js';
import type { Service } from '../core/service.js';
import type { Caller, Credentials, Gate } from '../gate/gate.js';
import type { RoleModel } from '../models/role-models.js';
import type { ModelScheduler } from '../scheduler/model-scheduler.js';
import type { TaskTable } from '../tasks/task-table.js';
import type { Task } from '../tasks/task.js';
import { Liveness } from '../streaming/liveness.js';
import type { OpenStreams } from '../streaming/open-streams.js';
import type { StreamMetrics } from '../streaming/stream-metrics.js';
import { type FrameOutcome, type StreamFrame, StreamSession } from '../streaming/stream-session.js';

/**
 * Close codes of both video stream protocols (docs/streams.md). Failed authentication never
 * reaches here: it is refused before the upgrade, with an HTTP status and error body.
 */
export const CLOSE_CODES = {
  /** The client or the server ended the stream normally. */
  normal: 1000,
  /** The server is shutting down. */
  goingAway: 1001,
  /** A message exceeded DETECTD_STREAM_MAX_FRAME_BYTES (closed by the WebSocket layer before buffering it whole). */
  messageTooBig: 1009,
  /** A bug on our side; the stream id finds it in the log. */
  internalError: 1011,
  /** A message broke the protocol; an error message says why. */
  badMessage: 4400,
  /** Nothing arrived for DETECTD_STREAM_IDLE_TIMEOUT_MS while no frame was in work. */
  idle: 4408,
} as const;

const MAX_CLOSE_REASON_BYTES = 123; // RFC 6455: a close frame's payload is at most 125 bytes, 2 of them the code

/** `message` cut to fit a close frame. */
function closeReason(message: string): string {
  const bytes = Buffer.from(message);
  if (bytes.length <= MAX_CLOSE_REASON_BYTES) return message;
  // Cut on a character boundary: a partial UTF-8 sequence would make the close frame invalid.
  return new TextDecoder().decode(bytes.subarray(0, MAX_CLOSE_REASON_BYTES - 3)).replace(/\uFFFD$/, '') + '...';
}

/** What every stream front door needs to let a caller in. */
export interface StreamDoor {
  readonly gate: Gate;
  /** Every task has its streams (Task.analyse on each frame). */
  readonly tasks: TaskTable;
  readonly openStreams: OpenStreams;
}

/** What every stream front door receives from server.ts. */
export interface StreamTransportDependencies {
  readonly door: StreamDoor;
  readonly settings: StreamSettings;
  /** The image API's limits with the stream's pixel limit. */
  readonly analysisLimits: AnalysisLimits;
  readonly calls: CallRecorder;
  /** Every error code with its status: the core's and the features'. */
  readonly errors: ErrorCatalogue;
  readonly metrics: StreamMetrics;
  readonly logger: Logger;
}

/** Who may open a stream: an API key (wherever the protocol carries it) or a single-use stream token. */
export type StreamCredentials = Pick<Credentials, 'apiKey' | 'token'>;

/** The caller's service and its model, let in by the gate and within the stream limit; otherwise a DetectdError. */
export async function admitStream(door: StreamDoor, credentials: StreamCredentials, task: Task): Promise<Caller> {
  const caller = await door.gate.openStream(credentials, task);
  door.openStreams.checkRoom();
  return caller;
}

/** A stream protocol's wire form: client messages → frames, outcomes → server messages. One per connection (it may keep state). */
export interface StreamCodec {
  /** A client message → the frame to analyse, or undefined for a control message; throws a DetectdError when it breaks the protocol. */
  receive(data: Buffer, isBinary: boolean): StreamFrame | undefined;
  /** A frame's result or error → its server messages, in order (a result, then the events it brought). */
  outcome(outcome: FrameOutcome): readonly (string | Buffer)[];
  /** A broken protocol → the message sent before the stream is closed with 4400. */
  refusal(error: DetectdError): string | Buffer;
}

/** Resolves once the message is handed to the OS (or the socket is gone): the stream's back-pressure. */
export type Send = (message: string | Buffer) => Promise<void>;

/** One admitted stream: who it serves, for which task, over which protocol. */
export interface AdmittedStream {
  readonly streamId: string;
  readonly transport: string;
  readonly task: Task;
  readonly service: Service;
  readonly scheduler: ModelScheduler<RoleModel>;
}

/**
 * Carries one stream over a WebSocket: the engine (streaming/StreamSession) analyses, the codec
 * speaks the protocol, and this wires them to the socket with heartbeat, idle timeout, protocol
 * errors (message, then 4400) and the registry of open streams.
 */
export function serveWebSocketStream(
  socket: WebSocket,
  dependencies: StreamTransportDependencies,
  stream: AdmittedStream,
  codecFor: (send: Send) => StreamCodec,
): void {
  const { door, settings, analysisLimits, calls, errors, metrics, logger } = dependencies;
  const { streamId, transport } = stream;
  const send: Send = (message) => new Promise((resolve) => socket.send(message, () => resolve()));
  const codec = codecFor(send);
  // Every frame passes the gate's limits before the model: a refused frame gets its error and the stream goes on.
  const admitFrame = (timings: StageTimings) => door.gate.admitFrame(stream.service, timings);
  const session = new StreamSession({ ...stream, admitFrame, analysisLimits, calls, errors, metrics, logger }, async (outcome) => {
    for (const message of codec.outcome(outcome)) await send(message);
  });
  const close = (code: number, reason: string) => socket.close(code, closeReason(reason));
  const liveness = new Liveness(settings, {
    ping: () => socket.ping(),
    terminate: () => socket.terminate(),
    closeIdle: (reason) => close(CLOSE_CODES.idle, reason),
    busy: () => session.busy,
  });

  socket.on('message', (data: RawData, isBinary: boolean) => {
    // Messages still arriving after the server decided to close are ignored.
    if (socket.readyState !== socket.OPEN) return;
    liveness.heardFrom();
    try {
      const frame = codec.receive(data as Buffer, isBinary);
      if (frame) session.offer(frame);
    } catch (error) {
      if (error instanceof DetectdError) {
        // The protocol was broken: say why in full, then close with a short reason.
        void send(codec.refusal(error));
        close(CLOSE_CODES.badMessage, error.message);
      } else {
        logger.error({ stream_id: streamId, err: error }, 'stream failed');
        close(CLOSE_CODES.internalError, 'internal error; quote the stream id when reporting it');
      }
    }
  });
  socket.on('pong', () => liveness.pong());
  // Socket errors (a message over the size limit, a protocol violation) are followed by 'close'; the close line logs them.
  socket.on('error', (error) => logger.debug({ stream_id: streamId, err: error }, 'stream socket error'));
  const finished = new Promise<void>((resolve) =>
    socket.once('close', (code: number) => {
      liveness.stop();
      void session.end(code).then(resolve);
    }),
  );
  door.openStreams.add({
    transport,
    shutDown: () => close(CLOSE_CODES.goingAway, 'server shutting down'),
    terminate: () => socket.terminate(),
    finished,
  });
}
