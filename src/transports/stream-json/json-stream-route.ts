import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import { DetectdError, errorBody } from '../../core/errors.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';
import type { StreamSettings } from '../../config.js';
import type { FrameId, FrameOutcome, StreamFrame } from '../../streaming/stream-session.js';
import type { Service } from '../../core/service.js';
import type { RoleModel } from '../../models/role-models.js';
import type { ModelScheduler } from '../../scheduler/model-scheduler.js';
import type { Task } from '../../tasks/task.js';
import { streamPaths } from '../stream-paths.js';
import type { WebSocketRoute } from '../websocket-upgrade.js';
import { admitStream, type Send, serveWebSocketStream, type StreamCodec, type StreamTransportDependencies } from '../websocket-stream.js';
import type { ClientMessage, ServerMessage } from './json-stream-protocol.js';

const TRANSPORT = 'stream-json';
/** The schema every client text message is checked against (schemas/stream-client-message.json). */
const CLIENT_MESSAGE = 'stream-client-message';

export interface JsonStreamDependencies extends StreamTransportDependencies {
  /** Client messages are validated against schemas/stream-client-message.json. */
  readonly schemas: SchemaCatalogue;
}

interface ReadyFacts {
  readonly streamId: string;
  readonly task: Task;
  readonly service: Service;
  readonly scheduler: ModelScheduler<RoleModel>;
  readonly settings: StreamSettings;
}

/**
 * detectd's own stream protocol: a `start` text message (the image API's configurations),
 * answered by `ready`; frames as binary messages (optionally announced by a JSON header naming
 * them) or as JSON with base64 `raw_data`; one JSON `result` or `error` per analysed frame.
 */
class JsonStreamCodec implements StreamCodec {
  /** The task's parameters from `start`; undefined until then. */
  #parameters: unknown;
  #started = false;
  /** The camera `start` named: every frame's unless the frame names its own. */
  #sourceId: string | undefined;
  /** Frame id and camera announced by a header message for the next binary message. */
  #nextBinaryFrameId: FrameId | undefined;
  #nextBinarySourceId: string | undefined;

  constructor(
    private readonly schemas: SchemaCatalogue,
    private readonly facts: ReadyFacts,
    private readonly send: Send,
  ) {}

  receive(data: Buffer, isBinary: boolean): StreamFrame | undefined {
    if (isBinary) {
      const frameId = this.#nextBinaryFrameId;
      const sourceId = this.#nextBinarySourceId;
      this.#nextBinaryFrameId = undefined;
      this.#nextBinarySourceId = undefined;
      return this.#frame(frameId, sourceId, data);
    }
    let message: unknown;
    try {
      message = JSON.parse(String(data));
    } catch {
      throw new DetectdError('invalid_json', 'a text message is not valid JSON');
    }
    const validity = this.schemas.check(CLIENT_MESSAGE, message);
    if (!validity.ok) throw new DetectdError('invalid_request', validity.problem);
    const parsed = message as ClientMessage;
    if (parsed.type === 'start') return this.#start(parsed);
    if (parsed.raw_data !== undefined) return this.#frame(parsed.frame_id, parsed.source_id, parsed.raw_data);
    this.#nextBinaryFrameId = parsed.frame_id;
    this.#nextBinarySourceId = parsed.source_id;
    return undefined;
  }

  outcome(outcome: FrameOutcome): string[] {
    if (outcome.kind === 'error') {
      return [JSON.stringify({ type: 'error', frame_id: outcome.frameId, ...errorBody(outcome.error, this.facts.streamId), retry_after_seconds: retryAfterOf(outcome.error) } satisfies ServerMessage)];
    }
    const result: ServerMessage = {
      type: 'result',
      frame_id: outcome.frameId,
      service_id: this.facts.service.id,
      source_id: outcome.sourceId,
      sequence: outcome.sequence,
      width: outcome.width,
      height: outcome.height,
      dropped: outcome.dropped,
      [this.facts.task.answerField]: outcome.found,
      raw_data: outcome.visualizedImage,
      timings: outcome.timings,
    };
    // Each state that settled anew with the frame, after its result: one event each.
    const events = outcome.changes.map(
      (change): ServerMessage => ({ type: 'event', event: 'state_changed', frame_id: outcome.frameId, source_id: outcome.sourceId ?? '', name: change.subject, from: change.from, to: change.to, confidence: change.confidence, frames: change.frames }),
    );
    return [result, ...events].map((message) => JSON.stringify(message));
  }

  refusal(error: DetectdError): string {
    return JSON.stringify({ type: 'error', ...errorBody(error, this.facts.streamId) } satisfies ServerMessage);
  }

  #start(start: Extract<ClientMessage, { type: 'start' }>): undefined {
    if (this.#started) throw new DetectdError('invalid_request', 'the stream has already started; open a new stream to change its configuration');
    const { streamId, task, service, scheduler, settings } = this.facts;
    this.#parameters = task.parseParameters({ configurations: start.configurations, classes: start.target_classes }, 'v1', scheduler);
    this.#sourceId = start.source_id;
    this.#started = true;
    const ready: ServerMessage = {
      type: 'ready',
      stream_id: streamId,
      service_id: service.id,
      model: scheduler.model.name,
      limits: {
        max_frame_bytes: settings.maxFrameBytes,
        max_frame_pixels: settings.maxFramePixels,
        idle_timeout_ms: settings.idleTimeoutMs,
        rate_limit_per_minute: service.rateLimitPerMinute,
        monthly_quota: service.monthlyQuota,
      },
    };
    void this.send(JSON.stringify(ready));
    return undefined;
  }

  #frame(frameId: FrameId | undefined, sourceId: string | undefined, payload: Buffer | string): StreamFrame {
    if (!this.#started) throw new DetectdError('invalid_request', 'send a "start" message before the first frame');
    return { frameId, sourceId: sourceId ?? this.#sourceId, payload, parameters: this.#parameters };
  }
}

/** Whole seconds to wait, for a refusal that passes with time. */
const retryAfterOf = (error: DetectdError) => (error.retryAfterSeconds === undefined ? undefined : Math.max(1, Math.ceil(error.retryAfterSeconds)));

/**
 * `GET /api/v1/<task>/stream` upgraded to WebSocket, for every task of the table. The caller shows
 * an API key in `Authorization`, or a stream token in `?token=` (browsers, whose WebSocket sends no headers).
 */
export function jsonStreamRoute(dependencies: JsonStreamDependencies): WebSocketRoute {
  const { door, settings } = dependencies;
  // Compiled with the route, at start-up: every text message is checked, and no first one pays the compilation.
  dependencies.schemas.prepare([CLIENT_MESSAGE]);
  const taskAt = (path: string) => door.tasks.all.find((task) => streamPaths(task.type).json === path);
  return {
    description: `${door.tasks.all.map((task) => streamPaths(task.type).json).join(', ')} (JSON)`,
    matches: (path) => taskAt(path) !== undefined,
    async accept({ request, path, query, requestId }) {
      const task = taskAt(path)!;
      const { service, scheduler } = await admitStream(door, { apiKey: apiKeyFromAuthorization(request.headers.authorization), token: query.get('token') }, task);
      return {
        open(socket) {
          const facts: ReadyFacts = { streamId: requestId, task, service, scheduler, settings };
          serveWebSocketStream(socket, dependencies, { streamId: requestId, transport: TRANSPORT, task, service, scheduler }, (send) => new JsonStreamCodec(dependencies.schemas, facts, send));
        },
      };
    },
  };
}
