/**
 * What a model does in a task's pipeline, as its configuration (`<model>.json` "role") or its
 * family declares it: a `detector` finds boxes in an image, a `reader` reads text in regions of it,
 * a `landmarker` marks a face's points, a `describer` turns a face into a descriptor, a `classifier`
 * labels an image or regions of it, an `embedder` turns regions of an image into vectors that lie
 * close when they look alike. Each role is one interface (role-models.ts), whatever the family.
 * schemas/model-description.json lists the same names.
 */
export const MODEL_ROLES = ['detector', 'reader', 'landmarker', 'describer', 'classifier', 'embedder'] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

export const isModelRole = (role: unknown): role is ModelRole => MODEL_ROLES.includes(role as ModelRole);

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
  /** General-purpose vectors of image regions (an ImageNet backbone's pooled features). */
  imageEmbeddings: 'image-embeddings',
} as const;

/** One of MODEL_KINDS, or a kind a model's configuration declares. */
export type ModelKind = string;
