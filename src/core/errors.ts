/** One error code's HTTP status and what it means, as the API reference and docs/api.md say it. */
export interface ErrorEntry {
  readonly status: number;
  readonly summary: string;
}

/** A table of error codes: the core's below, or a feature's own (Feature.errors). */
export type ErrorTable = Readonly<Record<string, ErrorEntry>>;

/**
 * The generic error codes, which any door, the gate or any feature may answer. A feature's own codes
 * (a face not found, a known plate listed twice) are its own: it declares them in its folder
 * (Feature.errors, typed through FeatureErrors below), and the composition root merges them with
 * these (ErrorCatalogue). Every failure a client can see is one of the merged codes, answered as
 * `{"error": {"code", "message", "request_id"}}` with its status. The OpenAPI document and the /docs
 * page are built from the merged catalogue (test/reference-routes.test.ts validates the served OpenAPI
 * document and checks its error codes against it); the "Errors" table of docs/api.md is written by
 * hand and test/readme-errors.test.ts fails unless it equals the merged catalogue row for row.
 */
export const CORE_ERRORS = {
  invalid_json: { status: 400, summary: 'The body is not valid JSON.' },
  invalid_request: { status: 400, summary: 'The JSON does not match the request schema (field named in the message).' },
  invalid_base64: { status: 400, summary: '`raw_data` is empty or not standard base64.' },
  invalid_multipart: { status: 400, summary: 'The multipart/form-data body is malformed, has more than one file, or its file is not in the `image` field.' },
  invalid_image: { status: 400, summary: 'The bytes are not a decodable JPEG, PNG, WebP, GIF, TIFF or AVIF image.' },
  invalid_configuration: { status: 400, summary: 'A configuration parameter is unknown, repeated or has a bad value.' },
  invalid_path: { status: 400, summary: 'The URL path has a malformed percent-escape (such as `%zz` or a lone `%`).' },
  invalid_encoding: { status: 400, summary: 'The body is not what its `Content-Encoding` says (corrupt, truncated or not compressed).' },
  invalid_http: { status: 400, summary: 'The request is not well-formed HTTP/1.1 (framing or header syntax); the connection is closed.' },
  unauthorized: { status: 401, summary: 'Missing, malformed, unknown, expired or revoked API key (or stream token).' },
  forbidden: { status: 403, summary: 'The key is valid but its service or its account is disabled, or the service is of another type.' },
  unknown_service: { status: 404, summary: 'No such service type in the URL (the message lists the known ones).' },
  not_found: { status: 404, summary: 'No such route.' },
  method_not_allowed: { status: 405, summary: 'The route exists but not for this HTTP method (see `Allow`).' },
  request_timeout: { status: 408, summary: 'The headers or the body did not arrive within their deadline; the connection is closed.' },
  payload_too_large: { status: 413, summary: 'The request body (declared, received or inflated) exceeds the body limit.' },
  image_too_large: { status: 413, summary: 'The image exceeds the pixel limit (checked before decoding).' },
  unsupported_media_type: { status: 415, summary: 'Content-Type is not `application/json` (optionally `; charset=utf-8`), `image/*`, `application/octet-stream` or `multipart/form-data`.' },
  unsupported_content_encoding: { status: 415, summary: '`Content-Encoding` is not one of `gzip`, `deflate`, `br`, `identity`.' },
  expectation_failed: { status: 417, summary: '`Expect` is something other than `100-continue`.' },
  image_too_complex: { status: 422, summary: 'The image costs too much to decode (a JPEG with too many progressive scans, or a decode past its deadline).' },
  upgrade_required: { status: 426, summary: 'The video stream endpoint speaks WebSocket only: send an `Upgrade: websocket` request.' },
  rate_limited: { status: 429, summary: 'The service\'s request-rate limit is reached; retry after `Retry-After` seconds (see the `RateLimit` headers).' },
  quota_exceeded: { status: 429, summary: 'The service\'s monthly call quota is used up; it renews at the start of the next month (UTC), after `Retry-After` seconds.' },
  headers_too_large: { status: 431, summary: 'Too many request headers, or too many bytes of them; the request is not parsed and the connection is closed.' },
  storage_unavailable: { status: 503, summary: 'The database cannot be reached for the moment (restarting, failing over, unreachable): what the call would change is not acknowledged; retry after `Retry-After` seconds. Analyses by a known key go on answering meanwhile (docs/operations.md, "When things fail").' },
  model_unavailable: { status: 503, summary: 'The service\'s model is not loaded on this server (the server was started without it), or its inference worker stopped during the call (it is restarted at once; retry after `Retry-After` seconds), or stopped and cannot be restarted because the model\'s file was deleted or replaced since it was loaded (the message names the file; it runs again once that file is back).' },
  overloaded: { status: 503, summary: 'Too many requests in flight (or video streams open); retry after `Retry-After` seconds.' },
  deadline_exceeded: { status: 503, summary: 'The request waited longer than the request deadline for the model.' },
  storage_full: { status: 507, summary: 'The disk the database writes to is full: nothing of this call was saved; retry after `Retry-After` seconds, once the operator has freed space. Analyses go on answering meanwhile.' },
  internal_error: { status: 500, summary: 'A bug on our side; the request id finds it in the log.' },
} as const satisfies ErrorTable;

/** A generic code, which any door or feature may answer. */
export type CoreErrorCode = keyof typeof CORE_ERRORS;

/**
 * The error tables the features declare, by feature name, for the compiler: a feature adds its own
 * (`declare module '…/core/errors.js' { interface FeatureErrors { plates: typeof PLATE_ERRORS } }`,
 * beside the table it registers as Feature.errors), so that the codes it throws are checked where
 * thrown, as the core's are, while the core names none of them (as Fastify's instance and Hono's
 * context variables are declared open and augmented by plugins).
 */
export interface FeatureErrors {}

/** A code some feature declares. */
type FeatureErrorCode = { [Feature in keyof FeatureErrors]: keyof FeatureErrors[Feature] & string }[keyof FeatureErrors];

/** Every error code: the core's and the features'. */
export type ErrorCode = CoreErrorCode | FeatureErrorCode;


/**
 * A failure the caller is told about: a code from the catalogue and a message that says what was
 * wrong and what is allowed. Thrown by any layer; each transport maps it to its wire form once.
 */
export class DetectdError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** For refusals that pass with time (overload, rate limits): when to try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; request_id: string };
}

export function errorBody(error: DetectdError, requestId: string): ErrorBody {
  return { error: { code: error.code, message: error.message, request_id: requestId } };
}
