import type { Box } from '../vision/image.js';
import type { PlacedFinding } from './finding.js';
import type { RegisteredPerson } from '../faces/face-recognition.js';
import type { AnalysisCall } from './analysis-call.js';

/** The largest face of a photo: its embedding, and its box in the photo's pixels as sent. */
export interface TakenFace {
  readonly embedding: Float32Array;
  readonly box: Box;
}

/**
 * A task that keeps a gallery of people per service (TaskAbilities.gallery): faces found and named
 * as `analyse` finds them, the largest face of a photo (its subject), how alike two faces are, and
 * the gallery's people. A door maps its own verbs onto these. Embeddings pass through here into the
 * gallery, never into a log or an answer.
 */
export interface PeopleGallery {
  /** The faces of an image at or above `minConfidence`, each named by the service's gallery when `recognize` (else just `face`). */
  find(image: Buffer, minConfidence: number, recognize: boolean, call: AnalysisCall): Promise<readonly PlacedFinding[]>;
  /** The largest face of a photo (its subject), or undefined when it shows none; 400 `no_face` when it is too small to describe. */
  largestFace(image: Buffer, call: AnalysisCall): Promise<TakenFace | undefined>;
  /** How alike two faces are, from their embeddings: 0–1, the scale of a match's similarity. */
  similarity(a: Float32Array, b: Float32Array): number;
  /** Adds the embeddings to the person, creating them when new; true when the person is new. */
  register(serviceId: string, person: string, embeddings: readonly Float32Array[]): Promise<boolean>;
  list(serviceId: string): Promise<readonly RegisteredPerson[]>;
  /** Removes the person and every sample; false when there was no such person. */
  remove(serviceId: string, person: string): Promise<boolean>;
}
