import { DetectdError, type ErrorCode } from '../../../core/errors.js';
import { FaceGalleryError } from '../gallery/face-gallery.js';

/**
 * CompreFace's error codes (its Java API's CommonExceptionCode) that this door answers, with the
 * HTTP status CompreFace gives each. Its answer to every failure is `{"code", "message"}`.
 */
const COMPREFACE_CODES = {
  undefined: { code: 0, status: 400 },
  modelNotFound: { code: 10, status: 404 },
  imageNotFound: { code: 11, status: 404 },
  missingRequestHeader: { code: 20, status: 400 },
  unavailableFileExtension: { code: 21, status: 400 },
  validationConstraintViolation: { code: 26, status: 400 },
  noFacesFound: { code: 28, status: 400 },
  missingRequestParameter: { code: 33, status: 400 },
  missingRequestPart: { code: 34, status: 400 },
  incorrectArgument: { code: 36, status: 400 },
  subjectNotFound: { code: 42, status: 404 },
  subjectAlreadyExists: { code: 43, status: 400 },
} as const satisfies Record<string, { code: number; status: number }>;

type CompreFaceCode = keyof typeof COMPREFACE_CODES;

/** A refusal of this door's own, in CompreFace's code; `detectdCode` is how the call is recorded (logs, metrics). */
export class CompreFaceRefusal extends DetectdError {
  constructor(
    readonly compreFaceCode: CompreFaceCode,
    detectdCode: ErrorCode,
    message: string,
  ) {
    super(detectdCode, message);
  }
}

/**
 * detectd's refusals in CompreFace's codes where it has one of the same meaning; the others keep
 * detectd's status (413, 415, 429, 503, …) with CompreFace's `code` 0 (UNDEFINED), which its
 * clients read as "failed".
 */
const CODE_OF: Partial<Record<ErrorCode, CompreFaceCode>> = {
  no_face: 'noFacesFound',
  invalid_image: 'unavailableFileExtension',
  invalid_base64: 'unavailableFileExtension',
  invalid_json: 'validationConstraintViolation',
  invalid_request: 'validationConstraintViolation',
  invalid_multipart: 'validationConstraintViolation',
  invalid_path: 'validationConstraintViolation',
  unusable_face: 'validationConstraintViolation',
  invalid_configuration: 'incorrectArgument',
  missing_field: 'missingRequestParameter',
  unauthorized: 'modelNotFound',
  forbidden: 'modelNotFound',
  unknown_person: 'subjectNotFound',
};

interface CompreFaceFailure {
  readonly status: number;
  readonly body: { readonly code: number; readonly message: string };
}

/** A failure as CompreFace answers it (`status`: the catalogue's for its code): its status and `{code, message}`. */
export function compreFaceFailure(error: DetectdError, status: number): CompreFaceFailure {
  const named = error instanceof CompreFaceRefusal ? error.compreFaceCode : CODE_OF[error.code];
  if (named) return { status: COMPREFACE_CODES[named].status, body: { code: COMPREFACE_CODES[named].code, message: error.message } };
  return { status, body: { code: COMPREFACE_CODES.undefined.code, message: error.message } };
}

/** A gallery's refusal (a bad subject name, another case of a registered one) as the caller's 400. */
export function refusedAsArgument(error: unknown): never {
  if (error instanceof FaceGalleryError) throw new CompreFaceRefusal('incorrectArgument', 'invalid_configuration', error.message);
  throw error;
}
