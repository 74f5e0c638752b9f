import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import { DetectdError, errorBody } from '../../core/errors.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';
import type { StreamSettings } from '../../config.js';
import type { FrameId, FrameOutcome, StreamFrame } from '../../streaming/stream-session.js';
import { type DetectionParameters, detectionParameters } from '../../tasks/object-detection/parameters.js';
import { STREAM_PATHS } from '../stream-paths.js';
import type { WebSocketRoute } from '../websocket-upgrade.js';
import { admitStream, type Send, serveWebSocketStream, type StreamCodec, type StreamTransportDependencies } from '../websocket-stream.js';
import type { ClientMessage, ServerMessage } from './json-stream-protocol.js';

const TRANSPORT = 'stream-json';

export interface JsonStreamDependencies extends StreamTransportDependencies {
  /** Client messages are validated against schemas/stream-client-message.json. */
  readonly schemas: SchemaCatalogue;
}

interface ReadyFacts {
  readonly streamId: string;
  readonly serviceId: string;
  readonly model: string;
  /** The model's class names, which `target_classes` must come from. */
  readonly labels: readonly string[];
  readonly settings: StreamSettings;
}

/**
 * detectd's own stream protocol: a `start` text message (the image API's configurations),
 * answered by `ready`; frames as binary messages (optionally announced by a JSON header naming
 * them) or as JSON with base64 `raw_data`; one JSON `result` or `error` per analysed frame.
 */
class JsonStreamCodec implements StreamCodec {
  #parameters: DetectionParameters | undefined;
  /** Frame id announced by a header message for the next binary message. */
  #nextBinaryFrameId: FrameId | undefined;

  constructor(
    private readonly schemas: SchemaCatalogue,
    private readonly facts: ReadyFacts,
    private readonly send: Send,
  ) {}

  receive(data: Buffer, isBinary: boolean): StreamFrame | undefined {
    if (isBinary) {
      const frameId = this.#nextBinaryFrameId;
      this.#nextBinaryFrameId = undefined;
      return this.#frame(frameId, data);
    }
    let message: unknown;
    try {
      message = JSON.parse(String(data));
    } catch {
      throw new DetectdError('invalid_json', 'a text message is not valid JSON');
    }
    const validity = this.schemas.check('stream-client-message', message);
    if (!validity.ok) throw new DetectdError('invalid_request', validity.problem);
    const parsed = message as ClientMessage;
    if (parsed.type === 'start') return this.#start(parsed.configurations, parsed.target_classes);
    if (parsed.raw_data !== undefined) return this.#frame(parsed.frame_id, parsed.raw_data);
    this.#nextBinaryFrameId = parsed.frame_id;
    return undefined;
  }

  outcome(outcome: FrameOutcome): string {
    const message: ServerMessage =
      outcome.kind === 'error'
        ? { type: 'error', frame_id: outcome.frameId, ...errorBody(outcome.error, this.facts.streamId) }
        : {
            type: 'result',
            frame_id: outcome.frameId,
            service_id: this.facts.serviceId,
            sequence: outcome.sequence,
            width: outcome.width,
            height: outcome.height,
            dropped: outcome.dropped,
            detected_objects: outcome.objects,
            raw_data: outcome.visualizedImage,
            timings: outcome.timings,
          };
    return JSON.stringify(message);
  }

  refusal(error: DetectdError): string {
    return JSON.stringify({ type: 'error', ...errorBody(error, this.facts.streamId) } satisfies ServerMessage);
  }

  #start(configurations: { parameter: string; value: string }[] | undefined, targetClasses: string[] | undefined): undefined {
    if (this.#parameters) throw new DetectdError('invalid_request', 'the stream has already started; open a new stream to change its configuration');
    this.#parameters = detectionParameters(configurations, targetClasses, 'v1', this.facts.labels);
    const { streamId, serviceId, model, settings } = this.facts;
    const ready: ServerMessage = {
      type: 'ready',
      stream_id: streamId,
      service_id: serviceId,
      model,
      limits: { max_frame_bytes: settings.maxFrameBytes, max_frame_pixels: settings.maxFramePixels, idle_timeout_ms: settings.idleTimeoutMs },
    };
    void this.send(JSON.stringify(ready));
    return undefined;
  }

  #frame(frameId: FrameId | undefined, payload: Buffer | string): StreamFrame {
    if (!this.#parameters) throw new DetectdError('invalid_request', 'send a "start" message before the first frame');
    return { frameId, payload, parameters: this.#parameters };
  }
}

/**
 * `GET /api/v1/object-detection/stream` upgraded to WebSocket. The caller shows an API key in
 * `Authorization`, or a stream token in `?token=` (browsers, whose WebSocket sends no headers).
 */
export function jsonStreamRoute(dependencies: JsonStreamDependencies): WebSocketRoute {
  const { door, settings } = dependencies;
  return {
    description: `${STREAM_PATHS.json} (JSON)`,
    matches: (path) => path === STREAM_PATHS.json,
    async accept({ request, query, requestId }) {
      const { service, model } = await admitStream(door, { apiKey: apiKeyFromAuthorization(request.headers.authorization), token: query.get('token') }, 'object-detection');
      return {
        open(socket) {
          const facts: ReadyFacts = { streamId: requestId, serviceId: service.id, model: model.detector.name, labels: model.detector.labels, settings };
          serveWebSocketStream(socket, dependencies, { streamId: requestId, transport: TRANSPORT, service, model }, (send) => new JsonStreamCodec(dependencies.schemas, facts, send));
        },
      };
    },
  };
}
