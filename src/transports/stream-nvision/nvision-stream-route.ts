import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import { STREAM_TOKEN_PREFIX } from '../../accounts/stream-tokens.js';
import { DetectdError } from '../../core/errors.js';
import type { FrameOutcome, StreamFrame } from '../../streaming/stream-session.js';
import type { RoleModel } from '../../models/role-models.js';
import type { ModelScheduler } from '../../scheduler/model-scheduler.js';
import type { Task } from '../../tasks/task.js';
import { NVISION_ANSWER_FIELDS, streamPaths } from '../stream-paths.js';
import type { WebSocketRoute } from '../websocket-upgrade.js';
import { admitStream, serveWebSocketStream, type StreamCodec, type StreamTransportDependencies } from '../websocket-stream.js';
import { decodeNvisionMessage, ENCODING_BASE64, encodeNvisionMessage, type NvisionMessage } from './nvision-wire.js';

const TRANSPORT = 'stream-nvision';

/**
 * The Nvision stream protocol, as the official SDK speaks it: every message both ways is one
 * binary protobuf NvisionRequest (schemas/nvision.proto). A client message is one frame with its
 * configurations; the answer echoes frame_id and source_id and carries the objects (each with a
 * bounding box, which the SDK reads unguarded, and detectd's track id and track answer, which it
 * skips), the service id and, when asked, the visualized frame as raw_data. Refusals are
 * NvisionRequests too, with `error` set: the SDK throws on text.
 */
class NvisionCodec implements StreamCodec {
  constructor(
    private readonly task: Task,
    private readonly serviceId: string,
    private readonly streamId: string,
    /** The stream's model, whose class names `target_classes` must come from. */
    private readonly scheduler: ModelScheduler<RoleModel>,
  ) {}

  receive(data: Buffer, isBinary: boolean): StreamFrame {
    if (!isBinary) throw new DetectdError('invalid_request', 'this stream takes binary protobuf NvisionRequest messages (schemas/nvision.proto), not text');
    let message: NvisionMessage;
    try {
      message = decodeNvisionMessage(data);
    } catch {
      throw new DetectdError('invalid_request', 'a message is not a protobuf NvisionRequest (schemas/nvision.proto)');
    }
    const bytes = message.raw_data ?? Buffer.alloc(0);
    return {
      frameId: message.frame_id || undefined,
      sourceId: message.source_id || undefined,
      payload: message.encoding === ENCODING_BASE64 ? bytes.toString('latin1') : bytes,
      parameters: this.task.parseParameters({ configurations: message.configurations, classes: message.target_classes }, 'v1', this.scheduler),
    };
  }

  outcome(outcome: FrameOutcome): Buffer[] {
    return [this.#message(outcome)];
  }

  #message(outcome: FrameOutcome): Buffer {
    const echo = { service_id: this.serviceId, frame_id: String(outcome.frameId), source_id: outcome.sourceId ?? '', created_at: new Date().toISOString() };
    if (outcome.kind === 'error') return encodeNvisionMessage({ ...echo, error: this.#error(outcome.error) });
    return encodeNvisionMessage({
      ...echo,
      raw_data: outcome.visualizedImage === undefined ? undefined : Buffer.from(outcome.visualizedImage, 'base64'),
      // The message has a field for objects and one for faces: the task's answer field names which.
      [this.task.answerField]: outcome.found.map((object) => ({
        name: object.name,
        parent: object.parent,
        confidence: object.confidence,
        bounding_box: object.bounding_box,
        cropped_image: object.cropped_image === undefined ? undefined : Buffer.from(object.cropped_image, 'base64'),
        track_id: object.track_id,
        track: object.track,
      })),
    });
  }

  refusal(error: DetectdError): Buffer {
    return encodeNvisionMessage({ service_id: this.serviceId, error: this.#error(error) });
  }

  #error(error: DetectdError): NvisionMessage['error'] {
    const retryAfter = error.retryAfterSeconds === undefined ? undefined : Math.max(1, Math.ceil(error.retryAfterSeconds));
    return { code: error.code, message: error.message, request_id: this.streamId, retry_after_seconds: retryAfter };
  }
}

/**
 * `GET /api/v1/<task>` upgraded to WebSocket — the REST path, as the SDK opens it — for every task
 * of the table. The SDK sends its key as the WebSocket subprotocol and fails unless the 101 echoes
 * it; a stream token there (or in `?token=`) and `Authorization` work too.
 */
export function nvisionStreamRoute(dependencies: StreamTransportDependencies): WebSocketRoute {
  const { door } = dependencies;
  const taskAt = (path: string) => door.tasks.all.find((task) => streamPaths(task.type).nvision === path);
  return {
    description: `${door.tasks.all.map((task) => streamPaths(task.type).nvision).join(', ')} (Nvision protobuf; the key as subprotocol)`,
    matches: (path) => taskAt(path) !== undefined,
    async accept({ request, path, query, requestId, protocols }) {
      const task = taskAt(path)!;
      if (!NVISION_ANSWER_FIELDS.has(task.answerField)) {
        throw new DetectdError('not_found', `the Nvision protocol (schemas/nvision.proto) has no field for ${task.type}'s answer, "${task.answerField}": stream it over the JSON stream, ${streamPaths(task.type).json}`);
      }
      const offered = protocols[0];
      // A stream token offered as the subprotocol is used as one; anything else offered there is taken for an API key.
      const offeredToken = offered?.startsWith(STREAM_TOKEN_PREFIX) === true;
      const token = offeredToken ? offered : query.get('token');
      const apiKey = offered !== undefined && !offeredToken ? offered : apiKeyFromAuthorization(request.headers.authorization);
      const { service, scheduler } = await admitStream(door, { apiKey, token }, task);
      return {
        protocol: offered,
        open(socket) {
          serveWebSocketStream(socket, dependencies, { streamId: requestId, transport: TRANSPORT, task, service, scheduler }, () => new NvisionCodec(task, service.id, requestId, scheduler));
        },
      };
    },
  };
}
