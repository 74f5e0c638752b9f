import type { JsonSchema } from '../core/schema-catalogue.js';
import type { ModelStep } from '../models/model-roles.js';
import type { Detection, ModelKind } from '../models/types.js';
import type { ModelScheduler } from '../scheduler/model-scheduler.js';
import type { AnalysisCall } from './analysis-call.js';
import type { Finding } from './finding.js';
import type { FaceApi } from './face-api.js';

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

/** One configuration parameter as the caller sent it, before validation. */
export interface Configuration {
  readonly parameter: string;
  readonly value: string;
}

/** Parameters as a door read them (a REST body or upload, a stream's `start`, an Nvision message), before validation. */
export interface SentParameters {
  readonly configurations?: readonly Configuration[];
  /** Class names to keep; absent: every class. */
  readonly targetClasses?: readonly string[];
}

/** What a task found in one image: every door maps these to its own wire form. */
export interface Findings {
  /** Size of the image as a person sees it: the boxes' pixel space. */
  readonly width: number;
  readonly height: number;
  /** What was found, highest confidence first: the elements of the task's `answerField`. */
  readonly found: readonly Finding[];
  /** Index-aligned with `found`: what a stream's tracker follows from frame to frame. */
  readonly tracked: readonly Detection[];
  /** The image with every box drawn (base64 JPEG), when the parameters ask for it. */
  readonly visualizedImage?: string;
}

/** The photo a task's example call sends: a file name, and how the docs and the console describe it. */
export interface ExamplePhoto {
  readonly file: string;
  /** What the file is, as in "with an image file, dog.jpg, in the current folder". */
  readonly description: string;
}

/**
 * The DeepStack / CodeProject.AI verbs a task offers. The DeepStack door (transports/deepstack/)
 * owns their routes, form fields and answers; a task only says which it answers.
 */
export interface DeepStackCapabilities {
  /** Object detection (`/v1/vision/detection`, `/v1/vision/custom/{model}`): `analyse` at the caller's minimum confidence. */
  readonly detection?: boolean;
  /** The face API (detection, recognition, registration, the list of people, deletion, comparison), over the face port. */
  readonly faces?: FaceApi;
  /** CodeProject.AI's licence-plate reading (`/v1/image/alpr`, `/v1/vision/alpr`): `analyse` at the task's default confidence, each finding's `name` the plate's text. */
  readonly plates?: boolean;
}

/**
 * A service type: `object-detection`, `face-detection`, … What it is (its type, what kind of model
 * it needs, its parameters and their schema, the name of its answer) and one `analyse(image,
 * parameters, call) → findings`. It knows no JSON body, upload, frame or DeepStack field: every
 * front door (REST v1 and legacy, both video streams, the DeepStack door), the OpenAPI document,
 * the docs page, the console and the CLI read the task table (tasks/index.ts, handed out by the
 * composition root) and reach a task only through this interface; the models it runs it declares
 * (`detects`, `models`) and reaches through their schedulers. So a new task of the roles and kinds
 * the server's families serve is one folder and one line in the table; a new family or role is
 * models/' business (docs/development.md). `Parameters` is the task's own parsed parameters, opaque outside its folder.
 */
export interface Task<Parameters = unknown> {
  readonly type: string;
  /** What its service's model finds (a model's declared or detected kind): a service of this task is answered only by a detector of this kind. */
  readonly detects: ModelKind;
  /**
   * The models the task runs, in order, by role and kind (as a Triton ensemble's steps), e.g. a
   * plate detector → a plate reader. The step `{ role: 'detector', kind: detects }` is the
   * service's model (AnalysisCall.scheduler); every other is served by the first loaded model of
   * its role and kind, through its scheduler (TaskDependencies.models). The server loads what they
   * need (a built-in model where none is configured) at start-up. Absent: the service's detector alone.
   */
  readonly models?: readonly ModelStep[];
  /** Short phrase for docs and the console, e.g. "Detect objects in one image". */
  readonly summary: string;
  /** Names of the JSON Schemas of the JSON request and response: schemas/<name>.json, or one of the task's own `schemas`. */
  readonly requestSchema: string;
  readonly responseSchema: string;
  /** JSON Schemas the task brings from its folder (each named by its `$id` without `.json`), added to schemas/ at start-up. */
  readonly schemas?: readonly JsonSchema[];
  readonly parameters: Readonly<Record<string, ParameterRule>>;
  /**
   * The name of the list of what was found, on every wire that carries it: the JSON API, the JSON
   * stream's `result` and, where its protobuf has a field of that name, the Nvision message.
   */
  readonly answerField: string;
  /**
   * The form fields (besides the image) of this task's example call, to show how parameters travel:
   * tasks/example-calls.ts turns them into the curl, Python and JavaScript of the README, /docs and the console.
   */
  readonly exampleFields: Readonly<Record<string, string>>;
  /** The photo its example call sends, when dog.jpg would show nothing (a face task needs a face). */
  readonly examplePhoto?: ExamplePhoto;
  /** Parameters as sent → the task's parameters, for the model that answers; 400 `invalid_configuration` (or `invalid_request`) on any problem. */
  parseParameters(sent: SentParameters, version: ApiVersion, scheduler: ModelScheduler): Parameters;
  /** One image → what was found in it. */
  analyse(image: Buffer, parameters: Parameters, call: AnalysisCall): Promise<Findings>;
  /** The DeepStack verbs this task answers; none when absent. */
  readonly deepStack?: DeepStackCapabilities;
}

/** Names of the parameters a version of the API accepts. */
export function parameterNames(parameters: Readonly<Record<string, ParameterRule>>, version: ApiVersion): string[] {
  return Object.entries(parameters)
    .filter(([, rule]) => rule.versions.includes(version))
    .map(([name]) => name);
}
