import type { Detection } from '../models/types.js';
import type { RgbImage } from '../vision/image.js';

/** A registered person of a face service, as its gallery lists them. */
export interface RegisteredPerson {
  readonly userid: string;
  /** Face samples (photos) registered for the person. */
  readonly samples: number;
  /** ISO time of the first registration. */
  readonly created: string;
}

/** The best registered match of a face at or above the service's threshold. */
export interface PersonMatch {
  readonly userid: string;
  /** 0–1, higher is more alike. */
  readonly similarity: number;
}

/** A service's gallery as read at one moment. */
export interface PersonMatcher {
  /** The best-matching person at or above the service's threshold; undefined when nobody is that alike. */
  match(embedding: Float32Array): PersonMatch | undefined;
}

/**
 * What the face task needs for recognition, handed to it by the composition root: the describer
 * (a face → its embedding) and each service's gallery of people. Embeddings are biometric data:
 * they pass through here and into the gallery, never into a log or an answer.
 */
export interface FaceRecognition {
  /** The L2-normalised embedding of a face found in `image` (full-resolution pixels): its box, and its landmarks where its detector gives them. */
  describe(image: RgbImage, face: Pick<Detection, 'box' | 'landmarks'>): Promise<Float32Array>;
  /** How alike two faces are, from their embeddings: 0–1, the scale of a match's similarity. */
  similarity(a: Float32Array, b: Float32Array): number;
  /** Height in pixels of the smallest face worth describing: a smaller one is too coarse to tell people apart, so it is nobody (and never registered). */
  readonly smallestFace: number;
  /** The service's gallery and threshold read once, to match the faces of one image; undefined when nobody is registered (nothing is described then). */
  matcher(serviceId: string): Promise<PersonMatcher | undefined>;
  /** Adds the samples to the person, creating them when new; true when the person is new. */
  register(serviceId: string, userid: string, embeddings: readonly Float32Array[]): Promise<boolean>;
  list(serviceId: string): Promise<readonly RegisteredPerson[]>;
  /** Removes the person and every sample; false when there was no such person. */
  remove(serviceId: string, userid: string): Promise<boolean>;
}
