import { DetectdError } from '../../core/errors.js';
import type { Service } from '../../core/service.js';
import type { BoundingBox, Finding } from '../../tasks/finding.js';
import type { Findings, Task } from '../../tasks/task.js';
import type { AnalysisCall } from '../../tasks/analysis-call.js';
import type { FormFile } from '../image-form.js';

/** A DeepStack form as the door read it (multipart, URL-encoded or empty), once the gate let the caller in. */
export interface DeepStackRequest {
  /** The files in the order sent, each with its field's name (`image`; `image1`, `image2`, … where a route reads several). */
  readonly images: readonly FormFile[];
  /** The text fields in the order sent, repeats kept. */
  readonly fields: readonly (readonly [name: string, value: string])[];
  /** `min_confidence`, checked by the door; undefined when absent (each route has its default). */
  readonly minConfidence: number | undefined;
  /** The `:model` segment of a route that names something of its task's own with it (DeepStackRouteDescription.namesOwn). */
  readonly ownName?: string;
}

/** A box as DeepStack's clients read it, with what is in it: an object's `label`, a face's `userid`; a route may add fields of its own (a plate's text). */
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
 * A DeepStack / CodeProject.AI route a feature offers for its task (docs/deepstack.md, "Moving from
 * DeepStack / CodeProject.AI"): a POST of a form, keyed, through the gate. The door's route table takes it as
 * it is, for its router and the OpenAPI document.
 */
interface DeepStackRouteDescription {
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
  /** The field its file is read from first, named when a form sends more files than `files`. */
  readonly fileField?: string;
  /**
   * Its `:model` segment names something of its task's own (a camera its service knows), not a
   * loaded model: at a path another route serves by model name, it answers the names no loaded
   * model of that route has (the segment reaches it as DeepStackRequest.ownName). Given a service
   * of its task, it lists the names that service has: CodeProject.AI's custom model list lists them
   * beside the models, for the caller's service.
   */
  readonly namesOwn?: (service: Service) => Promise<readonly string[]>;
}

/**
 * Each route either analyses (`respond`: the form → the answer, on the caller's call — its service,
 * the service's model) or manages what the service remembers (`manage`: a management call,
 * Gate.manage — no model, no rate limit or quota; the form → the answer, for the caller's service).
 */
export type DeepStackTaskRoute = DeepStackRouteDescription & ({ readonly respond: DeepStackRespond; readonly manage?: undefined } | { readonly manage: DeepStackManage; readonly respond?: undefined });

/** Routes a feature offers on the DeepStack door, answered by its task `task` (its service type's calls pass the gate as that task's). */
export interface DeepStackOffer {
  readonly task: Task;
  readonly routes: readonly DeepStackTaskRoute[];
}

export type DeepStackRespond = (request: DeepStackRequest, call: AnalysisCall) => Promise<DeepStackAnswer>;
export type DeepStackManage = (request: DeepStackRequest, service: Service) => Promise<DeepStackAnswer>;

/** The file of `field` (DeepStack's `image` unless a route reads others); 400 as DeepStack words it when the form has none. */
export function deepStackImage(request: DeepStackRequest, field = 'image'): Buffer {
  const image = request.images.find((file) => file.field === field);
  if (!image) throw new DetectdError('invalid_multipart', field === 'image' ? 'No valid image file found' : `No valid image file found in the "${field}" field`);
  return image.bytes;
}

/** The first non-empty value of a text field, trimmed; undefined when none was sent. */
export function deepStackField(request: DeepStackRequest, name: string): string | undefined {
  return request.fields.find(([field, value]) => field === name && value.trim() !== '')?.[1].trim();
}

type DeepStackBox = Pick<DeepStackPrediction, 'x_min' | 'y_min' | 'x_max' | 'y_max'>;

/** A box in DeepStack's fields (pixels, edges). */
export function deepStackBox(box: BoundingBox): DeepStackBox {
  return { x_min: box.left, y_min: box.top, x_max: box.right, y_max: box.bottom };
}

/** A finding's box in DeepStack's fields; a finding about the whole image (no box) is the whole image, the only box DeepStack's clients can read. */
export function findingBox(finding: Finding, image: Pick<Findings, 'width' | 'height'>): DeepStackBox {
  return deepStackBox(finding.bounding_box ?? { left: 0, top: 0, right: image.width, bottom: image.height });
}
