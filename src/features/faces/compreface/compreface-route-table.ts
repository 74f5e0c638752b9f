import type { FaceGallery } from '../gallery/face-gallery.js';
import type { Task } from '../../../tasks/task.js';
import type { PhotoFaces } from '../task/photo-faces.js';
import { compreFaceExampleRoutes } from './compreface-example-routes.js';
import { compreFaceDetectionRoutes, compreFaceRecognitionRoutes, type GalleryExamples } from './compreface-face-routes.js';
import type { CompreFaceRoute } from './compreface-route.js';

/** What the face task finds in a photo, and what the door's verbs keep and forget of the service's people. */
export interface CompreFaceMemory {
  /** What the face task finds in a photo: faces found, described, named, judged for registration, compared. */
  readonly faces: PhotoFaces;
  /** The face galleries: examples added and compared by id, people forgotten. */
  readonly gallery: Pick<FaceGallery, 'addExample' | 'example' | 'delete'>;
  readonly examples: GalleryExamples;
}

function notRunning(): never {
  throw new Error('this route table only describes the routes; the server builds the one that runs them');
}

/** What a table built only to be described (the OpenAPI document) is handed: none of its routes runs. */
const DESCRIBING: CompreFaceMemory = {
  faces: { find: notRunning, examine: notRunning, takeFace: notRunning, registrationFace: notRunning, similarity: notRunning },
  gallery: { addExample: notRunning, example: notRunning, delete: notRunning },
  examples: { page: notRunning, forget: notRunning, forgetAllOf: notRunning, people: notRunning, create: notRunning, rename: notRunning, forgetEveryone: notRunning },
};

/** Every route of the door for `task` (the one that keeps people): the router's and the OpenAPI document's one table. */
export function compreFaceRouteTable(task: Task, memory: CompreFaceMemory = DESCRIBING): CompreFaceRoute[] {
  const dependencies = { ...memory, defaultThreshold: Number(task.parameters.ConfidenceThreshold?.defaultValue ?? 0.5) };
  return [...compreFaceRecognitionRoutes(dependencies), ...compreFaceExampleRoutes(dependencies), ...compreFaceDetectionRoutes(dependencies)];
}
