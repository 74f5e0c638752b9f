import type { CoreErrorCode, ErrorTable } from '../../core/errors.js';

/**
 * The faces' own error codes (Feature.errors): what registering, correcting and comparing people's
 * faces can refuse, on every door (REST, DeepStack's face API, CompreFace's, which maps them onto its
 * codes in compreface/compreface-errors.ts).
 */
export const FACE_ERRORS = {
  no_face: { status: 400, summary: 'A face registration or comparison found no face in an image it was given.' },
  missing_field: { status: 400, summary: 'A field the route requires is missing from the form (named in the message), such as a face registration\'s `userid`.' },
  unknown_person: { status: 404, summary: 'No such person: a face correction names a person the service has not registered, or the key\'s service has no unknown person (or kept face) of that id (never seen, or named, merged or forgotten since).' },
  unusable_face: { status: 422, summary: 'A registration photo\'s face is too small or too blurred to describe, or the photo shows several faces and none was chosen (the message says which, why, and how to choose).' },
} as const satisfies ErrorTable;

/** A code a face route may answer: a generic one or the faces' own. */
export type FaceErrorCode = CoreErrorCode | keyof typeof FACE_ERRORS;

declare module '../../core/errors.js' {
  /** The faces' codes, thrown as DetectdErrors and checked where thrown. */
  interface FeatureErrors {
    faces: typeof FACE_ERRORS;
  }
}
