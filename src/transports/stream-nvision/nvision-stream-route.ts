import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import { STREAM_TOKEN_PREFIX } from '../../accounts/stream-tokens.js';
import { DetectdError } from '../../core/errors.js';
import type { FrameOutcome, StreamFrame } from '../../streaming/stream-session.js';
import { detectionParameters } from '../../tasks/object-detection/parameters.js';
import { STREAM_PATHS } from '../stream-paths.js';
import type { WebSocketRoute } from '../websocket-upgrade.js';
import { admitStream, serveWebSocketStream, type StreamCodec, type StreamTransportDependencies } from '../websocket-stream.js';
import { decodeNvisionMessage, ENCODING_BASE64, encodeNvisionMessage, type NvisionMessage } from './nvision-wire.js';

const TRANSPORT = 'stream-nvision';

/**
 * The Nvision stream protocol, as the official SDK speaks it: every message both ways is one
 * binary protobuf NvisionRequest (schemas/nvision.proto). A client message is one frame with its
 * configurations; the answer echoes frame_id and source_id and carries the objects (each with a
 * bounding box, which the SDK reads unguarded), the service id and, when asked, the visualized
 * frame as raw_data. Refusals are NvisionRequests too, with `error` set: the SDK throws on text.
 */
class NvisionCodec implements StreamCodec {
  constructor(
    private readonly serviceId: string,
    private readonly streamId: string,
    /** The model's class names, which `target_classes` must come from. */
    private readonly labels: readonly string[],
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
      parameters: detectionParameters(message.configurations, message.target_classes, 'v1', this.labels),
    };
  }

  outcome(outcome: FrameOutcome): Buffer {
    const echo = { service_id: this.serviceId, frame_id: String(outcome.frameId), source_id: outcome.sourceId ?? '', created_at: new Date().toISOString() };
    if (outcome.kind === 'error') return encodeNvisionMessage({ ...echo, error: this.#error(outcome.error) });
    return encodeNvisionMessage({
      ...echo,
      raw_data: outcome.visualizedImage === undefined ? undefined : Buffer.from(outcome.visualizedImage, 'base64'),
      detected_objects: outcome.objects.map((object) => ({
        name: object.name,
        parent: object.parent,
        confidence: object.confidence,
        bounding_box: object.bounding_box,
        cropped_image: object.cropped_image === undefined ? undefined : Buffer.from(object.cropped_image, 'base64'),
      })),
    });
  }

  refusal(error: DetectdError): Buffer {
    return encodeNvisionMessage({ service_id: this.serviceId, error: this.#error(error) });
  }

  #error(error: DetectdError): NvisionMessage['error'] {
    return { code: error.code, message: error.message, request_id: this.streamId };
  }
}

/**
 * `GET /api/v1/object-detection` upgraded to WebSocket — the REST path, as the SDK opens it. The
 * SDK sends its key as the WebSocket subprotocol and fails unless the 101 echoes it; a stream
 * token there (or in `?token=`) and `Authorization` work too.
 */
export function nvisionStreamRoute(dependencies: StreamTransportDependencies): WebSocketRoute {
  const { door } = dependencies;
  return {
    description: `${STREAM_PATHS.nvision} (Nvision protobuf; the key as subprotocol)`,
    matches: (path) => path === STREAM_PATHS.nvision,
    async accept({ request, query, requestId, protocols }) {
      const offered = protocols[0];
      // A stream token offered as the subprotocol is used as one; anything else offered there is taken for an API key.
      const offeredToken = offered?.startsWith(STREAM_TOKEN_PREFIX) === true;
      const token = offeredToken ? offered : query.get('token');
      const apiKey = offered !== undefined && !offeredToken ? offered : apiKeyFromAuthorization(request.headers.authorization);
      const { service, model } = await admitStream(door, { apiKey, token }, 'object-detection');
      return {
        protocol: offered,
        open(socket) {
          serveWebSocketStream(socket, dependencies, { streamId: requestId, transport: TRANSPORT, service, model }, () => new NvisionCodec(service.id, requestId, model.detector.labels));
        },
      };
    },
  };
}
