import { FaceGallery } from './gallery/face-gallery.js';
import { type FaceRecognition, galleryRecognition } from './gallery/face-recognition.js';
import { FaceExamples } from './gallery/face-examples.js';
import { UnknownPeople } from './gallery/unknown-people.js';
import { SMALLEST_DESCRIBED_FACE } from '../../models/face-describer.js';
import { faceDetectionTask } from './task/face-detection-task.js';
import { compreFaceOpenApiPaths } from './compreface/compreface-openapi.js';
import { compreFaceRoutes } from './compreface/compreface-routes.js';
import { peopleOpenApiPaths, peopleRoutes } from './people-routes.js';
import { unknownPeopleOpenApiPaths, unknownPeopleRoutes } from './unknown-people-routes.js';
import { DESCRIBED_MODELS, type Feature, notRunning } from '../feature.js';

/** How often kept unknown faces past their service's retention are forgotten, beside each keeping (a service that sees no face forgets too). */
const UNKNOWN_FACES_SWEEP_MS = 3_600_000;

/** Recognition of faces described only: nothing of it runs. */
const DESCRIBED_ONLY: FaceRecognition = {
  similarity: notRunning,
  smallestFace: 0,
  matcher: notRunning,
  register: notRunning,
  addNegative: notRunning,
  list: notRunning,
  remove: notRunning,
  remembersUnknown: notRunning,
  keepUnknown: notRunning,
};

/**
 * Faces (docs/faces.md): the `face-detection` task with each service's gallery of people and its
 * unknown people, their REST routes, CompreFace's API and commands. Its modules still live where they
 * were before the features had folders (tasks/face-detection/, faces/, transports/http/people-routes.ts
 * and unknown-people-routes.ts, transports/compreface/, transports/deepstack/deepstack-face-routes.ts,
 * cli/, console/, store/migrations/): this entry gathers them behind the Feature interface until they move here.
 */
export const faces: Feature = {
  name: 'faces',
  docs: 'docs/faces.md',
  parts(server) {
    if (!server) return { tasks: [faceDetectionTask(DESCRIBED_ONLY, DESCRIBED_MODELS)] };
    const { db, secret, logger } = server;
    const gallery = new FaceGallery(db, secret);
    const unknownPeople = new UnknownPeople(db, secret, gallery);
    // Never the faces: an error while keeping them is logged without them, and the call is answered.
    const recognition = galleryRecognition(gallery, SMALLEST_DESCRIBED_FACE, { people: unknownPeople, failed: (error) => logger.error({ err: error }, 'unknown faces could not be kept') });
    const forgetExpired = () => void unknownPeople.purgeAll().catch((error: unknown) => logger.error({ err: error }, 'expired unknown faces could not be forgotten'));
    let sweep: NodeJS.Timeout | undefined;
    return {
      tasks: [faceDetectionTask(recognition, server.models)],
      rest: [
        { router: ({ gate, tasks, schemas, router }) => unknownPeopleRoutes({ gate, tasks, schemas, people: unknownPeople, router: router() }), openApiPaths: unknownPeopleOpenApiPaths },
        { router: ({ gate, tasks, schemas, maxBodyBytes, router }) => peopleRoutes({ gate, tasks, schemas, maxBodyBytes, unknownPeople, router: router() }), openApiPaths: peopleOpenApiPaths },
        {
          router: ({ gate, tasks, schemas, schedulers, maxBodyBytes, router }) => compreFaceRoutes({ gate, tasks, schemas, schedulers, gallery, examples: new FaceExamples(db), maxBodyBytes, logger, router: router() }),
          openApiPaths: compreFaceOpenApiPaths,
        },
      ],
      async start() {
        forgetExpired();
        sweep = setInterval(forgetExpired, UNKNOWN_FACES_SWEEP_MS).unref();
        const registerAgain = await gallery.peopleToRegisterAgain();
        if (registerAgain > 0) {
          logger.warn({ people: registerAgain }, 'registered people whose face descriptors an earlier version made (not comparable with today\'s, never matched): register a photo of each again (docs/faces.md)');
        }
      },
      stop: () => clearInterval(sweep),
    };
  },
  async addServiceCommands(service, served) {
    (await import('../../cli/unknown-face-commands.js')).addUnknownFaceCommands(service, served);
  },
};
