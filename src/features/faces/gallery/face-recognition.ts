import { DetectdError } from '../../../core/errors.js';
import { type FaceGallery, FaceGalleryError, type FacePerson, type FaceSample } from './face-gallery.js';
import { faceSimilarity, reportedSimilarity } from './face-similarity.js';
import type { SeenIn, UnknownPeople, UnnamedFace } from './unknown-people.js';

/** A registered person of a face service, as its gallery lists them. */
export interface RegisteredPerson {
  /** The name the person was registered by (DeepStack's userid). */
  readonly name: string;
  /** Face samples (photos) registered for the person. */
  readonly samples: number;
  /** "Not this person" examples attached to them. */
  readonly negatives: number;
  /** ISO time of the first registration. */
  readonly created: string;
}

/** The best registered match of a face at or above the service's threshold. */
export interface PersonMatch {
  /** The registered person's name. */
  readonly name: string;
  /** 0–1 on the reported scale (face-similarity.ts), higher is more alike. */
  readonly similarity: number;
}

/** A service's gallery as read at one moment. */
export interface PersonMatcher {
  /** The best-matching person at or above the service's threshold; undefined when nobody is that alike. */
  match(embedding: Float32Array): PersonMatch | undefined;
}

/**
 * Face recognition, the one port the face task uses beside its models: the comparison of
 * embeddings (the describer's, a model the task composes), and each service's gallery of people.
 * Embeddings are biometric data: they pass through here and into the gallery, never into a log or an answer.
 */
export interface FaceRecognition {
  /** How alike two faces are, from their embeddings: 0–1 on the reported scale, a match's and the threshold's (face-similarity.ts). */
  similarity(a: Float32Array, b: Float32Array): number;
  /** Height in pixels of the smallest face worth describing: a smaller one is too coarse to tell people apart, so it is nobody (and never registered). */
  readonly smallestFace: number;
  /** The service's gallery and threshold read once, to match the faces of one image; undefined when nobody is registered (the faces are described all the same, and compared with no one). */
  matcher(serviceId: string): Promise<PersonMatcher | undefined>;
  /** Adds the samples to the person, creating them when new; true when the person is new. */
  register(serviceId: string, person: string, samples: readonly FaceSample[]): Promise<boolean>;
  /** Attaches a "not this person" example to a registered person (face-gallery.ts addNegative); 404 `unknown_person` when there is nobody by that name. */
  addNegative(serviceId: string, person: string, embedding: Float32Array): Promise<RegisteredPerson>;
  list(serviceId: string): Promise<readonly RegisteredPerson[]>;
  /** Removes the person and every sample; false when there was no such person. */
  remove(serviceId: string, person: string): Promise<boolean>;
  /** Whether the service keeps the faces no one is named for (its owner's switch, off by default). */
  remembersUnknown(serviceId: string): Promise<boolean>;
  /**
   * Keeps the faces of one image no one was named for, grouped into unknown people (the service
   * remembers). Never fails the call: a failure is reported without the faces, and the answer goes out.
   */
  keepUnknown(serviceId: string, faces: readonly UnnamedFace[], seenIn: SeenIn): Promise<void>;
}

/** Where the server's recognition keeps unknown faces, and whom it tells when keeping fails. */
export interface UnknownFaceKeeping {
  readonly people: UnknownPeople;
  /** A face could not be kept (a database error): told the error, never the faces. */
  failed(error: unknown): void;
}

/**
 * The recognition of a running server: the galleries in the database. A gallery's refusal (a bad
 * userid) is the caller's 400. `smallestFace`: the describer's smallest face worth describing;
 * `unknown`: where the faces no one is named for are kept.
 */
export function galleryRecognition(gallery: FaceGallery, smallestFace: number, unknown: UnknownFaceKeeping): FaceRecognition {
  const refusedAsRequest = (error: unknown): never => {
    if (!(error instanceof FaceGalleryError)) throw error;
    throw new DetectdError(error.code === 'unknown_person' ? 'unknown_person' : 'invalid_configuration', error.message);
  };
  const listed = ({ userid, samples, negatives, created }: FacePerson): RegisteredPerson => ({ name: userid, samples, negatives, created });
  return {
    similarity: (a, b) => reportedSimilarity(faceSimilarity(a, b)),
    smallestFace,
    async matcher(serviceId) {
      const matcher = await gallery.matcher(serviceId);
      if (matcher.people === 0) return undefined;
      return {
        match(embedding) {
          const found = matcher.match(embedding);
          return found && { name: found.userid, similarity: found.similarity };
        },
      };
    },
    async register(serviceId, person, samples) {
      const registered = await gallery.register(serviceId, person, samples).catch(refusedAsRequest);
      return registered.samples + registered.outdatedSamples === samples.length;
    },
    addNegative: async (serviceId, person, embedding) => listed(await gallery.addNegative(serviceId, person, embedding).catch(refusedAsRequest)),
    list: async (serviceId) => (await gallery.list(serviceId)).map(listed),
    remove: (serviceId, person) => gallery.delete(serviceId, person),
    // Keeping is never worth failing a call for: when the switch cannot be read (the database is away), nothing is kept.
    remembersUnknown: (serviceId) =>
      unknown.people.settings(serviceId).then(
        (settings) => settings.remember,
        (error: unknown) => {
          unknown.failed(error);
          return false;
        },
      ),
    keepUnknown: (serviceId, faces, seenIn) => unknown.people.keep(serviceId, faces, seenIn).catch(unknown.failed),
  };
}
