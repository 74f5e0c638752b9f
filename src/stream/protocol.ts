import type { DetectedObject, DetectionResponse } from '../tasks/object-detection/response.js';
import type { ErrorBody } from '../core/errors.js';

export const STREAM_PATH = '/api/v1/object-detection/stream';
export const STREAM_TOKENS_PATH = '/api/v1/object-detection/stream-tokens';

/**
 * Close codes of the video stream (README "Video stream (WebSocket)"). Failed authentication
 * never reaches here: it is refused before the upgrade, with an HTTP status and error body.
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
  /** A message broke the protocol (not JSON, not schema-valid, frame before `start`, bad configuration); an `error` message says why. */
  badMessage: 4400,
  /** Nothing arrived for DETECTD_STREAM_IDLE_TIMEOUT_MS while no frame was in work. */
  idle: 4408,
} as const;

export type FrameId = number | string;

/** Text message from the client, already schema-valid (schemas/stream-client-message.json). */
export type ClientMessage =
  | { type: 'start'; configurations?: { parameter: string; value: string }[] }
  | { type: 'frame'; frame_id: FrameId; raw_data?: string };

export interface TrackedObject extends DetectedObject {
  track_id: number;
}

export interface ResultTimings {
  wait: number;
  decode: number;
  preprocess: number;
  inference: number;
  postprocess: number;
  tracking: number;
  encode: number;
  total: number;
}

/** Messages from the server (schemas/stream-server-message.json). */
export type ServerMessage =
  | {
      type: 'ready';
      stream_id: string;
      model: string;
      limits: { max_frame_bytes: number; max_frame_pixels: number; idle_timeout_ms: number };
    }
  | ({
      type: 'result';
      frame_id: FrameId;
      sequence: number;
      width: number;
      height: number;
      dropped: number;
      detected_objects: TrackedObject[];
      timings: ResultTimings;
    } & Pick<DetectionResponse, 'visualized_image'>)
  | ({ type: 'error'; frame_id?: FrameId } & ErrorBody);
