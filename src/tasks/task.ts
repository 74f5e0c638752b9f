import type { CallContext } from '../core/call-context.js';
import type { AnalysisLimits } from '../core/pipeline.js';
import type { SchemaCatalogue } from '../core/schema-catalogue.js';
import type { Service } from '../core/service.js';
import type { Detection, DetectorKind } from '../models/types.js';
import type { ModelScheduler, ModelTurn } from '../scheduler/model-scheduler.js';
import type { DetectedObject } from './detected-object.js';

/** Versions of the public API: `v1` (`/api/v1/<task>`, current) and `legacy` (`/api/<task>`). */
export type ApiVersion = 'v1' | 'legacy';

/** One configuration parameter of a task: the single row behind validation, defaults and docs. */
export interface ParameterRule {
  readonly versions: readonly ApiVersion[];
  readonly defaultValue: string;
  /** What a valid value looks like, in words for error messages and docs. */
  readonly allowed: string;
  readonly description: string;
}

/** What a task's run needs besides the request: the same for every transport. */
export interface TaskCall {
  readonly version: ApiVersion;
  readonly service: Service;
  readonly scheduler: ModelScheduler;
  readonly schemas: SchemaCatalogue;
  readonly limits: AnalysisLimits;
  readonly signal: AbortSignal;
  readonly context: CallContext;
}

/** Parameters as a request or a stream sent them, before validation. */
export interface SentParameters {
  readonly configurations?: readonly Configuration[];
  /** Class names to keep; absent: every class. */
  readonly targetClasses?: readonly string[];
}

/** One stream frame to analyse, on a model turn the stream already holds. */
export interface FrameCall {
  /** The stream's service (a face service recognizes the people of its own gallery). */
  readonly service: Service;
  readonly scheduler: ModelScheduler;
  readonly turn: ModelTurn;
  readonly limits: AnalysisLimits;
  /** The frame's deadline, or the stream ending. */
  readonly signal: AbortSignal;
  readonly context: CallContext;
}

/** What a task found in one stream frame. */
export interface FrameAnalysis {
  /** Size of the frame as a person sees it: the boxes' pixel space. */
  readonly width: number;
  readonly height: number;
  /** What was found, in the task's wire form (the elements of its `answerField`). */
  readonly found: readonly DetectedObject[];
  /** Index-aligned with `found`: what the stream's tracker follows from frame to frame. */
  readonly tracked: readonly Detection[];
  /** The frame with every box drawn (base64 JPEG), when the parameters ask for it. */
  readonly visualizedImage?: string;
}

/** One file of a DeepStack form, with its field's name (`image`; `image1`, `image2`, … where a route reads several). */
export interface DeepStackImage {
  readonly field: string;
  readonly bytes: Buffer;
}

/** A DeepStack form as the door read it (multipart, URL-encoded or empty), once the gate let the caller in. */
export interface DeepStackRequest {
  /** The files in the order sent. */
  readonly images: readonly DeepStackImage[];
  /** The text fields in the order sent, repeats kept. */
  readonly fields: readonly (readonly [name: string, value: string])[];
  /** DeepStack's `min_confidence`, checked by the door; 0.4 (DeepStack's default) when absent. */
  readonly minConfidence: number;
}

/** A box as DeepStack's clients read it, with what is in it: an object's `label`, a face's `userid`. */
export interface DeepStackPrediction {
  readonly label?: string;
  readonly userid?: string;
  readonly confidence: number;
  readonly x_min: number;
  readonly y_min: number;
  readonly x_max: number;
  readonly y_max: number;
}

/** A route's own part of its answer; the door adds `success`, the timings and CodeProject.AI's fields. */
export interface DeepStackAnswer {
  /** What was found, highest confidence first: the answer's `predictions` and `count`. */
  readonly predictions?: readonly DeepStackPrediction[];
  /** CodeProject.AI's `message`; absent: the door names the labels found. */
  readonly message?: string;
  /** The route's other fields (`faces` of a face list, `similarity` of a match). */
  readonly fields?: Readonly<Record<string, unknown>>;
}

/**
 * A DeepStack / CodeProject.AI route a task answers (docs/deepstack.md): a POST of a form, keyed, through the gate. The DeepStack door's route table
 * takes it as it is, for its router and the OpenAPI document.
 */
export interface DeepStackRoute {
  /** Express path; a `:model` segment names a loaded model (name or alias) instead of the service's. */
  readonly path: string;
  /** CodeProject.AI's `command` in the answer. */
  readonly command: string;
  readonly operationId: string;
  readonly summary: string;
  /** The form fields it reads, with what each means. */
  readonly formFields: Readonly<Record<string, string>>;
  /** The success answer's fields, for the reference. */
  readonly answer: string;
  /** Failure statuses and when, for the reference. */
  readonly failures: Readonly<Record<string, string>>;
  /** Files in any fields, up to this many (`image1`, `image2`, …); absent: one, in `image`. */
  readonly files?: number;
  /** The form → the route's answer, on the caller's call (its service, the service's model). */
  respond(request: DeepStackRequest, call: TaskCall): Promise<DeepStackAnswer>;
}

/** The task's side of the DeepStack door: the routes it answers. */
export interface DeepStackSide {
  readonly routes: readonly DeepStackRoute[];
}

/**
 * A service type: `object-detection`, `face-detection`. Every front door (the REST routes, v1 and legacy; both
 * video streams; the DeepStack door), the OpenAPI document, the docs page, the console, the CLI and
 * the service store read the task table (tasks/index.ts, handed out by the composition root) and
 * reach a task only through this interface, so a second task is one new folder beside
 * object-detection/ and one line in the table. `Parameters` is the task's own parsed parameters,
 * opaque to everything outside its folder.
 */
export interface Task<Parameters = unknown> {
  readonly type: string;
  /** What the task's models find: a service of this task is answered only by a model of this kind. */
  readonly detects: DetectorKind;
  /** Short phrase for docs and the console, e.g. "Detect objects in one image". */
  readonly summary: string;
  /** Names of the JSON Schemas (schemas/<name>.json) of the JSON request and response. */
  readonly requestSchema: string;
  readonly responseSchema: string;
  readonly parameters: Readonly<Record<string, ParameterRule>>;
  /**
   * The name of the list of what was found, on every wire that carries it: the JSON API, the JSON
   * stream's `result` and the Nvision message (whose protobuf has both fields).
   */
  readonly answerField: 'detected_objects' | 'detected_faces';
  /**
   * The form fields (besides the image) of this task's example call, to show how parameters travel:
   * tasks/example-calls.ts turns them into the curl, Python and JavaScript of the README, /docs and the console.
   */
  readonly exampleFields: Readonly<Record<string, string>>;
  /** A JSON request body (already parsed, not yet validated) → the JSON response body. */
  runJson(body: unknown, call: TaskCall): Promise<unknown>;
  /**
   * An uploaded image (raw body or form file) and its request (the JSON body's other fields, from
   * the query string or the form: upload-request.ts, already checked against the request schema) → the same JSON response body.
   */
  runUpload(bytes: Buffer, request: UploadRequest, call: TaskCall): Promise<unknown>;
  /** A stream's parameters (the JSON stream's `start`, each Nvision message) → the task's parameters; 400 `invalid_configuration` on any problem. */
  parseParameters(sent: SentParameters, version: ApiVersion, scheduler: ModelScheduler): Parameters;
  /** One stream frame's image → what was found in it. */
  analyseFrame(image: Buffer, parameters: Parameters, call: FrameCall): Promise<FrameAnalysis>;
  /** The DeepStack routes this task answers; none when absent. */
  readonly deepStack?: DeepStackSide;
}

/**
 * An upload's request: the task's JSON request body without `raw_data` (the image came as bytes),
 * each field checked against the task's request schema (upload-request.ts). A task reads it as it
 * reads its JSON body.
 */
export type UploadRequest = Readonly<Record<string, unknown>>;

/** One configuration parameter as the caller sent it, before validation. */
export interface Configuration {
  readonly parameter: string;
  readonly value: string;
}

/** The JSON body every image task takes (its request schema checked it): the image and its parameters. */
export interface ImageRequestBody {
  readonly raw_data: string;
  readonly frame_id?: string;
  readonly source_id?: string;
  readonly configurations?: Configuration[];
}

/** Names of the parameters a version of the API accepts. */
export function parameterNames(parameters: Readonly<Record<string, ParameterRule>>, version: ApiVersion): string[] {
  return Object.entries(parameters)
    .filter(([, rule]) => rule.versions.includes(version))
    .map(([name]) => name);
}
