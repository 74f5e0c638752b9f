import type { Box, Point } from '../../vision/image.js';
import type { PlacedFinding } from '../../tasks/finding.js';
import type { RegisteredPerson } from './gallery/face-recognition.js';
import type { FaceSample } from './gallery/face-gallery.js';
import type { FaceProblem, FaceWarning } from './gallery/face-quality.js';
import type { AnalysisCall } from '../../tasks/analysis-call.js';
import type { RoleModel } from '../../models/role-models.js';

/** The face taken from a photo: its embedding, and its box in the photo's pixels as sent. */
export interface TakenFace {
  readonly embedding: Float32Array;
  readonly box: Box;
}

/** A photo's face judged for registration (face-quality.ts): refused, with why; or taken, with why it is weak (no warnings: a good face). */
export type RegistrationFace = { readonly box: Box; readonly problem: FaceProblem } | (TakenFace & { readonly warnings: readonly FaceWarning[] });

/** A face as `examine` finds it: the finding `find` gives, with its five landmarks and its descriptor where they were asked for. */
export interface ExaminedFace {
  readonly finding: PlacedFinding;
  /** Its five landmarks (eyes, nose, mouth corners), in the image's pixels, when asked for. */
  readonly landmarks?: readonly Point[];
  /** Its descriptor, where it was described: a face too small to describe has none. */
  readonly embedding?: Float32Array;
}

/** What `examine` is asked: the faces at or above `minConfidence`, named by the gallery when `recognize`, each described when `describe`, with its landmarks when `landmarks`. */
interface Examination {
  readonly minConfidence: number;
  readonly recognize: boolean;
  readonly describe?: boolean;
  readonly landmarks?: boolean;
}

/**
 * A task that keeps a gallery of people per service (TaskAbilities.gallery): faces found and named
 * as `analyse` finds them, the face of a photo (chosen by its box, else its subject), how alike two faces are, and
 * the gallery's people. A door maps its own verbs onto these. Embeddings pass through here into the
 * gallery, never into a log or an answer.
 */
/** `Lead`: the interface of the face task's lead model, whose calls the gallery is given. */
export interface PeopleGallery<Lead extends RoleModel = RoleModel> {
  /** The faces of an image at or above `minConfidence`, each named by the service's gallery when `recognize` (else just `face`). */
  find(image: Buffer, minConfidence: number, recognize: boolean, call: AnalysisCall<Lead>): Promise<readonly PlacedFinding[]>;
  /** The faces `find` finds, with what else is asked of each (a door whose answer carries landmarks or descriptors: CompreFace's face plugins). */
  examine(image: Buffer, examination: Examination, call: AnalysisCall<Lead>): Promise<readonly ExaminedFace[]>;
  /**
   * The face of a photo: the one whose box overlaps `near` most (a face chosen in a photo of
   * several), else the largest (its subject); undefined when it shows none (none near `near`); 400
   * `no_face` when it is too small to describe.
   */
  takeFace(image: Buffer, call: AnalysisCall<Lead>, near?: Box): Promise<TakenFace | undefined>;
  /**
   * The face a person is registered by — the one whose box overlaps `near` most, else the photo's
   * subject (face-quality.ts photoSubject: a `several` problem when none of its faces stands out) —
   * judged for registration (face-quality.ts); undefined when the photo shows none (none near `near`).
   */
  registrationFace(image: Buffer, call: AnalysisCall<Lead>, near?: Box): Promise<RegistrationFace | undefined>;
  /** How alike two faces are, from their embeddings: 0–1, the scale of a match's similarity. */
  similarity(a: Float32Array, b: Float32Array): number;
  /** Adds the samples to the person, creating them when new; true when the person is new. */
  register(serviceId: string, person: string, samples: readonly FaceSample[]): Promise<boolean>;
  /** Attaches a "not this person" example to a registered person; 404 `unknown_person` when there is nobody by that name. */
  addNegative(serviceId: string, person: string, embedding: Float32Array): Promise<RegisteredPerson>;
  list(serviceId: string): Promise<readonly RegisteredPerson[]>;
  /** Removes the person and every sample; false when there was no such person. */
  remove(serviceId: string, person: string): Promise<boolean>;
}
