import type { Service } from '../../../core/service.js';
import type { AnalysisCall } from '../../../tasks/analysis-call.js';
import type { CallStatus } from './compreface-answer.js';

/** What an analysing route is handed once the gate let its call in: the query, the images of its body by field, the path's parameters, and what `status=true` reports. */
export interface AnalysisInput {
  readonly query: URLSearchParams;
  readonly images: ReadonlyMap<string, Buffer>;
  readonly params: Readonly<Record<string, string>>;
  /** The models that answer the call and its timings so far, read when the answer is made. */
  readonly status: () => CallStatus;
}

/** What a management route is handed: the query, its JSON body when it takes one (checked against its schema), the path's parameters. */
interface ManagementInput {
  readonly query: URLSearchParams;
  readonly json: unknown;
  readonly params: Readonly<Record<string, string>>;
}

/** How a route answers: JSON (checked in tests against `schema`), or the bytes of an image. */
export type CompreFaceAnswer = { readonly json: unknown } | { readonly image: Buffer };

interface RouteDescription {
  readonly method: 'get' | 'post' | 'put' | 'delete';
  /** The Express path; a `:name` segment is a path parameter. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  /** The query parameters it reads, with what each means. */
  readonly query?: Readonly<Record<string, string>>;
  /** The answer's JSON Schema (schemas/<name>.json); absent: the answer is image bytes. */
  readonly answerSchema?: string;
  /** Failure statuses and when, for the reference. */
  readonly failures: Readonly<Record<string, string>>;
  /** Where the key is: `x-api-key` (every route but one), or the path's `api_key` (CompreFace's static image URL). */
  readonly keyInPath?: boolean;
}

/**
 * One route of the CompreFace door, declared once for the router and the OpenAPI document: either
 * an analysis (`images`: the body's image fields; through the whole gate, on the face service's
 * model) or a management call (Gate.manage: no model, no rate limit or quota; `json`: the schema
 * of the JSON body it takes).
 */
export type CompreFaceRoute = RouteDescription &
  (
    | { readonly images: readonly string[]; readonly analyse: (input: AnalysisInput, call: AnalysisCall) => Promise<CompreFaceAnswer>; readonly manage?: undefined }
    | { readonly json?: string; readonly manage: (input: ManagementInput, service: Service) => Promise<CompreFaceAnswer>; readonly analyse?: undefined }
  );

/** CompreFace's routes all live under these. */
export const COMPREFACE_PREFIXES = ['/api/v1/recognition', '/api/v1/detection', '/api/v1/verification', '/api/v1/static'] as const;
