import type { FaceGallery, FaceMatcher } from './face-gallery.js';
import type { SeenIn, UnknownPeople, UnnamedFace } from './unknown-people.js';

/**
 * Face recognition, the one port the face task uses beside its models: each service's gallery read
 * for matching, and the faces it names no one for, kept when the service remembers them. Who is
 * registered, and how, is the gallery's own business (face-gallery.ts), which the doors reach directly.
 * Embeddings are biometric data: they pass through here and into the gallery, never into a log or an answer.
 */
export interface FaceRecognition {
  /** Height in pixels of the smallest face worth describing: a smaller one is too coarse to tell people apart, so it is nobody (and never registered). */
  readonly smallestFace: number;
  /** The service's gallery and threshold read once, to match the faces of one image; undefined when nobody is registered (the faces are described all the same, and compared with no one). */
  matcher(serviceId: string): Promise<Pick<FaceMatcher, 'match'> | undefined>;
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
 * The recognition of a running server: the galleries in the database. `smallestFace`: the
 * describer's smallest face worth describing; `unknown`: where the faces no one is named for are kept.
 */
export function galleryRecognition(gallery: Pick<FaceGallery, 'matcher'>, smallestFace: number, unknown: UnknownFaceKeeping): FaceRecognition {
  return {
    smallestFace,
    async matcher(serviceId) {
      const matcher = await gallery.matcher(serviceId);
      return matcher.people === 0 ? undefined : matcher;
    },
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
