/** Where the video streams answer; shared by the stream front doors and the HTTP routes that point at them. */
export const STREAM_PATHS = {
  /** The JSON stream (detectd's own protocol). */
  json: '/api/v1/object-detection/stream',
  /** The Nvision stream: the same path as the REST API, told apart by the Upgrade. */
  nvision: '/api/v1/object-detection',
  /** POST: a single-use stream token for browsers. */
  tokens: '/api/v1/object-detection/stream-tokens',
} as const;
