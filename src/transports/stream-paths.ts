/** Where a task's video streams answer; shared by the stream front doors and the HTTP routes and documents that point at them. */
export interface StreamPaths {
  /** The JSON stream (detectd's own protocol). */
  readonly json: string;
  /** The Nvision stream: the same path as the REST API, told apart by the Upgrade. */
  readonly nvision: string;
  /** POST: a single-use stream token for browsers. */
  readonly tokens: string;
}

export function streamPaths(taskType: string): StreamPaths {
  return { json: `/api/v1/${taskType}/stream`, nvision: `/api/v1/${taskType}`, tokens: `/api/v1/${taskType}/stream-tokens` };
}

/** The answer fields schemas/nvision.proto's NvisionRequest has: only a task whose answer field is one of them has an Nvision stream. */
export const NVISION_ANSWER_FIELDS: ReadonlySet<string> = new Set(['detected_objects', 'detected_faces']);
