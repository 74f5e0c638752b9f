/**
 * What a model does in a task's pipeline, as its configuration (`<model>.json` "role") or its
 * family declares it: a `detector` finds boxes in an image, a `reader` reads text in regions of it,
 * a `landmarker` marks a face's points, a `describer` turns a face into a descriptor, a `classifier`
 * labels a whole image. schemas/model-description.json lists the same names.
 */
export const MODEL_ROLES = ['detector', 'reader', 'landmarker', 'describer', 'classifier'] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/**
 * What a model finds or makes (a detector's `objects`, a reader's `plate-text`, …): a task asks
 * for a model of a role and kind. A configuration may declare a kind of its own; these are the
 * kinds of the families the server reads, and the only place they are written out (a layering
 * rule: nothing outside the model registries names one as a literal).
 */
export const MODEL_KINDS = {
  /** COCO-style classes. */
  objects: 'objects',
  faces: 'faces',
  plates: 'plates',
  plateText: 'plate-text',
  faceLandmarks: 'face-landmarks',
  faceDescriptors: 'face-descriptors',
} as const;

/** One of MODEL_KINDS, or a kind a model's configuration declares. */
export type ModelKind = string;

/**
 * One model a task composes, in the order it runs them (as a Triton ensemble's steps): the role
 * and kind of model the step needs. A task's first step is its service's model, a detector the
 * service names or the default of its kind; every later step is served by the first loaded model
 * of that role and kind.
 */
export interface ModelStep {
  readonly role: ModelRole;
  readonly kind: ModelKind;
  /** Run only for some inputs (a face's landmarks where its detector gives none): the task is served without it when none is loaded. */
  readonly optional?: boolean;
  /** How an operator gets a model for the step, for the answer and the start-up warning when none is loaded. */
  readonly remedy?: string;
}
