import { FaceGallery } from './gallery/face-gallery.js';
import { type FaceRecognition, galleryRecognition } from './gallery/face-recognition.js';
import { FaceExamples } from './gallery/face-examples.js';
import { FACE_TABLES } from './gallery/face-tables.js';
import { UnknownPeople } from './gallery/unknown-people.js';
import { SMALLEST_DESCRIBED_FACE } from '../../models/face-describer.js';
import { deepStackFaceRoutes } from './deepstack-face-routes.js';
import { FACE_DETECTION, faceDetectionTask } from './task/face-detection-task.js';
import { photoFaces } from './task/photo-faces.js';
import { compreFaceOpenApiPaths } from './compreface/compreface-openapi.js';
import { compreFaceRoutes } from './compreface/compreface-routes.js';
import { peopleOpenApiPaths, peopleRoutes } from './people-routes.js';
import { unknownPeopleOpenApiPaths, unknownPeopleRoutes } from './unknown-people-routes.js';
import { DESCRIBED_MODELS, type Feature, notRunning } from '../feature.js';
import { FACE_ERRORS } from './face-errors.js';
import { faceThresholdCard } from './face-threshold-card.js';
import { FACE_MIGRATIONS } from './migrations/index.js';
import { peopleSection } from './people-card.js';
import { unknownPeopleSection } from './unknown-people-card.js';

/** How often kept unknown faces past their service's retention are forgotten, beside each keeping (a service that sees no face forgets too). */
const UNKNOWN_FACES_SWEEP_MS = 3_600_000;

/** Recognition of faces described only: nothing of it runs. */
const DESCRIBED_ONLY: FaceRecognition = { smallestFace: 0, matcher: notRunning, remembersUnknown: notRunning, keepUnknown: notRunning };
/** A gallery described only: nothing of it runs. */
const DESCRIBED_GALLERY = { register: notRunning, list: notRunning, delete: notRunning };

/**
 * Faces (docs/faces.md): the `face-detection` task (task/) with each service's gallery of people and
 * its unknown people (gallery/; their tables' migrations in migrations/), their REST routes, DeepStack's
 * face API and CompreFace's (compreface/), their console cards and commands.
 */
export const faces: Feature = {
  name: 'faces',
  docs: 'docs/faces.md',
  consoleAssets: 'src/features/faces/console',
  migrations: FACE_MIGRATIONS,
  tables: FACE_TABLES,
  errors: FACE_ERRORS,
  parts(server) {
    if (!server) {
      const task = faceDetectionTask(DESCRIBED_ONLY, DESCRIBED_MODELS);
      return { tasks: [task], deepStack: [{ task, routes: deepStackFaceRoutes(photoFaces(DESCRIBED_ONLY, DESCRIBED_MODELS), DESCRIBED_GALLERY) }] };
    }
    const { db, secret, logger } = server;
    const gallery = new FaceGallery(db, secret);
    const unknownPeople = new UnknownPeople(db, secret, gallery);
    // Never the faces: an error while keeping them is logged without them, and the call is answered.
    const recognition = galleryRecognition(gallery, SMALLEST_DESCRIBED_FACE, { people: unknownPeople, failed: (error) => logger.error({ err: error }, 'unknown faces could not be kept') });
    const task = faceDetectionTask(recognition, server.models);
    const faces = photoFaces(recognition, server.models);
    const forgetExpired = () => void unknownPeople.purgeAll().catch((error: unknown) => logger.error({ err: error }, 'expired unknown faces could not be forgotten'));
    let sweep: NodeJS.Timeout | undefined;
    return {
      tasks: [task],
      deepStack: [{ task, routes: deepStackFaceRoutes(faces, gallery) }],
      consoleCards: [
        { serviceType: FACE_DETECTION, section: peopleSection },
        { serviceType: FACE_DETECTION, section: unknownPeopleSection },
        faceThresholdCard(FACE_DETECTION, gallery),
      ],
      rest: [
        { router: ({ gate, schemas, router }) => unknownPeopleRoutes({ gate, task, schemas, people: unknownPeople, router: router() }), openApiPaths: () => unknownPeopleOpenApiPaths(task) },
        { router: ({ gate, tasks, schemas, maxBodyBytes, router }) => peopleRoutes({ gate, tasks, task, faces, gallery, schemas, maxBodyBytes, unknownPeople, router: router() }), openApiPaths: () => peopleOpenApiPaths(task) },
        {
          router: ({ gate, schemas, schedulers, maxBodyBytes, errors, router }) => compreFaceRoutes({ gate, task, faces, schemas, schedulers, gallery, examples: new FaceExamples(db), maxBodyBytes, errors, logger, router: router() }),
          openApiPaths: () => compreFaceOpenApiPaths(task),
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
    (await import('./people-commands.js')).addPeopleCommands(service, served, FACE_DETECTION);
    (await import('./unknown-face-commands.js')).addUnknownFaceCommands(service, served, FACE_DETECTION);
  },
  serviceFacts: async (service, store) => (await import('./people-commands.js')).faceFacts(FACE_DETECTION, service, store),
};
