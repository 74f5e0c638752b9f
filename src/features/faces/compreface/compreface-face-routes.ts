import { DetectdError } from '../../../core/errors.js';
import { UNKNOWN_PERSON } from '../gallery/unknown-person.js';
import type { FaceExamples } from '../gallery/face-examples.js';
import type { FaceGallery } from '../gallery/face-gallery.js';
import type { AnalysisCall } from '../../../tasks/analysis-call.js';
import type { ExaminedFace, PhotoFaces } from '../task/photo-faces.js';
import { type CallStatus, executionTime, faceFields, type FacePlugins, facePluginsOf, largestFaces, pluginsVersions } from './compreface-answer.js';
import { CompreFaceRefusal, refusedAsArgument } from './compreface-errors.js';
import { booleanParameter, subjectParameter, thresholdParameter, wholeParameter } from './compreface-request.js';
import type { AnalysisInput, CompreFaceRoute } from './compreface-route.js';

/** A gallery example by example and person by person (gallery/face-examples.ts). */
export type GalleryExamples = Pick<FaceExamples, 'page' | 'forget' | 'forgetAllOf' | 'people' | 'create' | 'rename' | 'forgetEveryone'>;

/** What the face verbs of the door work on: the face task's photo faces (finding, judging, comparing faces), and the galleries' examples and people. */
export interface CompreFaceFaces {
  readonly faces: PhotoFaces;
  readonly gallery: Pick<FaceGallery, 'addExample' | 'example' | 'delete'>;
  readonly examples: GalleryExamples;
  /** `det_prob_threshold` when absent: the face task's default confidence. */
  readonly defaultThreshold: number;
}

/** CompreFace's answer to an image in which it finds no face (400, code 28). */
const NO_FACE_MESSAGE = 'No face is found in the given image';

const KEYED_FAILURES = {
  '400': '`x-api-key` missing (code 20); a bad parameter (code 36) or body (code 26).',
  '404': 'The key opens no face service (code 10): unknown, revoked, or another type\'s.',
};
const IMAGE_FAILURES = {
  ...KEYED_FAILURES,
  '400': `${KEYED_FAILURES['400']} No image (code 34), not an image (code 21), or no face in it (code 28, "${NO_FACE_MESSAGE}").`,
  '413': 'The body or the image is larger than the limits (code 0).',
  '429': 'The service\'s rate limit or quota is spent (code 0).',
  '503': 'Overloaded, past the deadline, or no face model loaded (code 0).',
};
const ANALYSIS_QUERY = {
  limit: 'The most faces answered, the biggest first; 0 (the default): all.',
  det_prob_threshold: 'The least detection confidence of a face, 0.0–1.0; default the face task\'s (0.5).',
  face_plugins: 'Comma-separated: `landmarks` (five points), `calculator` (the descriptor, as `embedding`); `age`, `gender`, `mask`, `pose` are accepted and left out of the answer (docs/faces.md "CompreFace\'s API").',
  status: '`true` adds `execution_time` and `plugins_versions`.',
};

/** How one image's faces are asked for: the threshold, the limit, the plugins, `status`. */
interface FaceQuery {
  readonly threshold: number;
  readonly limit: number;
  readonly plugins: FacePlugins;
  readonly status: boolean;
}

function faceQueryOf(query: URLSearchParams, defaultThreshold: number): FaceQuery {
  return { threshold: thresholdParameter(query, defaultThreshold), limit: wholeParameter(query, 'limit', 0, 0), plugins: facePluginsOf(query), status: booleanParameter(query, 'status') };
}

/** The image of `field`, its faces examined as `asked` says (each described when `describe`), the largest `limit`; CompreFace's 400 code 28 when it shows none. */
async function facesOf(faces: PhotoFaces, input: AnalysisInput, field: string, asked: FaceQuery, recognize: boolean, describe: boolean, call: AnalysisCall): Promise<readonly ExaminedFace[]> {
  const found = await faces.examine(input.images.get(field)!, { minConfidence: asked.threshold, recognize, describe: describe || asked.plugins.calculator, landmarks: asked.plugins.landmarks }, call);
  if (found.length === 0) throw new DetectdError('no_face', NO_FACE_MESSAGE);
  return largestFaces(found, asked.limit);
}

/** A face's fields with its `execution_time` when `status` is asked. */
function answeredFace(face: ExaminedFace, asked: FaceQuery, status: () => CallStatus, described: boolean): Record<string, unknown> {
  return { ...faceFields(face, asked.plugins), ...(asked.status && { execution_time: executionTime(status(), described) }) };
}

const versionsOf = (asked: FaceQuery, status: () => CallStatus, described: boolean) => (asked.status ? { plugins_versions: pluginsVersions(status(), described) } : {});
const similarityOf = (faces: PhotoFaces, a: Float32Array, b: Float32Array | undefined) => (b ? Math.round(faces.similarity(a, b) * 1e5) / 1e5 : 0);

/**
 * CompreFace's face recognition service: recognition, examples added through detectd's
 * registration judgement, one face compared with a registered example. A face matches a subject
 * only as detectd names it (the service's threshold and margin, "not this person" faces): a
 * stranger's subject is `unknown`, never the nearest person.
 */
export function compreFaceRecognitionRoutes(dependencies: CompreFaceFaces): CompreFaceRoute[] {
  const { faces, gallery, defaultThreshold } = dependencies;
  return [
    {
      method: 'post',
      path: '/api/v1/recognition/recognize',
      operationId: 'compreface-recognize',
      summary: 'CompreFace recognition: who each face of an image is among the service\'s subjects',
      query: { ...ANALYSIS_QUERY, prediction_count: 'The most subjects per face (default 1); detectd answers one: the subject the face is recognized as, or `unknown` at similarity 0.' },
      images: ['file'],
      answerSchema: 'compreface-recognition-response',
      failures: IMAGE_FAILURES,
      async analyse(input, call) {
        const asked = faceQueryOf(input.query, defaultThreshold);
        // Read to refuse a bad one; detectd names a face as one person or no one, so one subject is always answered.
        wholeParameter(input.query, 'prediction_count', 1, 1);
        const found = await facesOf(faces, input, 'file', asked, true, false, call);
        const result = found.map((face) => {
          const { name, similarity } = face.finding;
          // A face named no one is CompreFace's subject `unknown` at similarity 0, as DeepStack's door answers it:
          // its clients read `subjects[0]` of every face (Viseron's, Home Assistant's without a check) and
          // compare its similarity with their threshold, which 0 never reaches.
          const subjects = [similarity === undefined ? { subject: UNKNOWN_PERSON, similarity: 0 } : { subject: name, similarity }];
          return { ...answeredFace(face, asked, input.status, true), subjects };
        });
        return { json: { result, ...versionsOf(asked, input.status, true) } };
      },
    },
    {
      method: 'post',
      path: '/api/v1/recognition/faces',
      operationId: 'compreface-add-example',
      summary: 'CompreFace: add an example of a subject (registered as detectd registers a photo: its subject, judged for registration)',
      query: { subject: 'The subject (1–200 characters); new subjects are created.', det_prob_threshold: 'Accepted; registration takes a face detected at 0.55 or more whatever it says (docs/faces.md "Registration quality").' },
      images: ['file'],
      answerSchema: 'compreface-example-response',
      failures: { ...IMAGE_FAILURES, '400': `${IMAGE_FAILURES['400']} No \`subject\` (code 33); a face too small or too blurred to describe, or several faces none of which stands out (code 26, the message says why).` },
      async analyse(input, call) {
        const subject = subjectParameter(input.query, true);
        thresholdParameter(input.query, defaultThreshold);
        const face = await faces.registrationFace(input.images.get('file')!, call);
        if (!face) throw new DetectdError('no_face', NO_FACE_MESSAGE);
        // CompreFace's add takes no box: one of several faces is registered from a photo of the person alone.
        if ('problem' in face) {
          const howToChoose = face.problem.reason === 'several' ? ': send a photo of the subject alone (or cropped to their face)' : '';
          throw new DetectdError('unusable_face', `the photo's face cannot be registered: ${face.problem.message}${howToChoose}`);
        }
        const added = await gallery.addExample(call.service.id, subject, { descriptor: face.embedding, weak: face.warnings.length > 0 }).catch(refusedAsArgument);
        // `warnings` is detectd's addition (CompreFace's clients read `image_id` and `subject`): why the face describes its subject less surely.
        return { json: { image_id: added.sampleId, subject: added.person.name, warnings: face.warnings.map(({ reason, message }) => ({ reason, message })) } };
      },
    },
    {
      method: 'post',
      path: '/api/v1/recognition/faces/:image_id/verify',
      operationId: 'compreface-verify-example',
      summary: 'CompreFace: how alike each face of an image is to one example of a subject',
      query: ANALYSIS_QUERY,
      images: ['file'],
      answerSchema: 'compreface-example-verification-response',
      failures: { ...IMAGE_FAILURES, '404': `${KEYED_FAILURES['404']} No example of that \`image_id\` in the service (code 11).` },
      async analyse(input, call) {
        const asked = faceQueryOf(input.query, defaultThreshold);
        const example = await gallery.example(call.service.id, input.params.image_id);
        if (!example) throw new CompreFaceRefusal('imageNotFound', 'unknown_person', `Image ${input.params.image_id} not found`);
        const found = await facesOf(faces, input, 'file', asked, false, true, call);
        const result = found.map((face) => ({ ...answeredFace(face, asked, input.status, true), similarity: similarityOf(faces, example.descriptor, face.embedding) }));
        return { json: { result, ...versionsOf(asked, input.status, true) } };
      },
    },
  ];
}

/** CompreFace's face detection and face verification services, answered by a face service's key. */
export function compreFaceDetectionRoutes(dependencies: CompreFaceFaces): CompreFaceRoute[] {
  const { faces, defaultThreshold } = dependencies;
  return [
    {
      method: 'post',
      path: '/api/v1/detection/detect',
      operationId: 'compreface-detect',
      summary: 'CompreFace face detection (the service\'s face model)',
      query: ANALYSIS_QUERY,
      images: ['file'],
      answerSchema: 'compreface-detection-response',
      failures: IMAGE_FAILURES,
      async analyse(input, call) {
        const asked = faceQueryOf(input.query, defaultThreshold);
        const found = await facesOf(faces, input, 'file', asked, false, false, call);
        const described = asked.plugins.calculator;
        return { json: { result: found.map((face) => answeredFace(face, asked, input.status, described)), ...versionsOf(asked, input.status, described) } };
      },
    },
    {
      method: 'post',
      path: '/api/v1/verification/verify',
      operationId: 'compreface-verify',
      summary: 'CompreFace face verification: how alike each face of `target_image` is to the face of `source_image` (its largest)',
      query: ANALYSIS_QUERY,
      images: ['source_image', 'target_image'],
      answerSchema: 'compreface-verification-response',
      failures: IMAGE_FAILURES,
      async analyse(input, call) {
        const asked = faceQueryOf(input.query, defaultThreshold);
        const [source] = await facesOf(faces, input, 'source_image', { ...asked, limit: 1 }, false, true, call);
        const targets = await facesOf(faces, input, 'target_image', asked, false, true, call);
        if (!source.embedding) throw new DetectdError('no_face', `${NO_FACE_MESSAGE}: the face of source_image is too small to describe`);
        const face_matches = targets.map((face) => ({ ...answeredFace(face, asked, input.status, true), similarity: similarityOf(faces, source.embedding!, face.embedding) }));
        // CompreFace puts `plugins_versions` inside each result of a verification.
        return { json: { result: [{ source_image_face: answeredFace(source, asked, input.status, true), face_matches, ...versionsOf(asked, input.status, true) }] } };
      },
    },
  ];
}
