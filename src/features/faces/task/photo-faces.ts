import { DetectdError } from '../../../core/errors.js';
import type { ImageAnalysis } from '../../../core/pipeline.js';
import type { Detection, Detector } from '../../../models/types.js';
import type { RoleModel } from '../../../models/role-models.js';
import type { PlacedFinding } from '../../../tasks/finding.js';
import { type FaceProblem, type FaceWarning, photoSubject, registrationQuality } from '../gallery/face-quality.js';
import { faceSimilarity, reportedSimilarity } from '../gallery/face-similarity.js';
import type { Box, Point, RgbImage } from '../../../vision/image.js';
import { sharpness } from '../../../vision/sharpness.js';
import type { FaceRecognition } from '../gallery/face-recognition.js';
import type { AnalysisCall } from '../../../tasks/analysis-call.js';
import type { ComposedModels } from '../../../core/service-scheduler.js';
import { describeFace, faceLandmarks } from './describe-face.js';
import { detectFaces, findFaces } from './find-faces.js';

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
 * What the doors' face verbs ask of a photo beside the task's own analysis: its faces found and
 * named as `analyse` finds them, examined further, the face of a photo taken (chosen by its box,
 * else its subject) or judged for registration, and how alike two faces are. What a door then
 * keeps or forgets, it asks the gallery itself (face-gallery.ts). Embeddings pass through here,
 * never into a log or an answer. `Lead`: the interface of the face task's lead model, whose calls
 * these are given.
 */
export interface PhotoFaces<Lead extends RoleModel = RoleModel> {
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
  /** How alike two faces are, from their embeddings: 0–1 on the reported scale, a match's and the threshold's (face-similarity.ts). */
  similarity(a: Float32Array, b: Float32Array): number;
}

/**
 * The lowest detection confidence of the face taken from a registration photo or a comparison
 * (0.55, CodeProject.AI's own), whatever a caller's minimum says, so that a stray low-confidence box
 * is never registered as a person.
 */
const REGISTRATION_MIN_CONFIDENCE = 0.55;

const area = (box: Box) => Math.max(0, box.right - box.left) * Math.max(0, box.bottom - box.top);

/** The face of a photo two photos are compared by, or a "not this person" face taken: the largest one found. */
function largestOf(analysis: ImageAnalysis): Detection | undefined {
  return analysis.detections.reduce<Detection | undefined>((largest, detection) => (!largest || area(detection.box) > area(largest.box) ? detection : largest), undefined);
}

/** Below this overlap (intersection over union) with the box a caller chose, a face is not the one they meant. */
const LEAST_CHOSEN_OVERLAP = 0.3;

/** The face whose box overlaps `near` most, when it overlaps it enough. */
function nearestTo(analysis: ImageAnalysis, near: Box): Detection | undefined {
  const overlap = (box: Box) => {
    const shared = area({ left: Math.max(box.left, near.left), top: Math.max(box.top, near.top), right: Math.min(box.right, near.right), bottom: Math.min(box.bottom, near.bottom) });
    return shared / (area(box) + area(near) - shared || 1);
  };
  const best = analysis.detections.reduce<Detection | undefined>((found, detection) => (!found || overlap(detection.box) > overlap(found.box) ? detection : found), undefined);
  return best && overlap(best.box) >= LEAST_CHOSEN_OVERLAP ? best : undefined;
}

/** The face task's photo faces: found and described as `analyse` finds them (find-faces.ts). */
export function photoFaces(recognition: FaceRecognition, models: ComposedModels): PhotoFaces<Detector> {
  /** The photo's faces found for registration or comparison, given to `use` with the photo's pixels (released after). */
  async function withFaces<T>(image: Buffer, call: AnalysisCall<Detector>, use: (analysis: ImageAnalysis, pixels: RgbImage) => Promise<T>): Promise<T> {
    const { scheduler, limits, signal, context } = call;
    const analysis = await detectFaces({ bytes: image, scheduler, limits, signal, minScore: REGISTRATION_MIN_CONFIDENCE }, context.timings);
    try {
      return await use(analysis, analysis.pixels!);
    } finally {
      analysis.pixels?.release();
    }
  }
  const boxOf = ({ box }: Detection): Box => ({ left: Math.round(box.left), top: Math.round(box.top), right: Math.round(box.right), bottom: Math.round(box.bottom) });
  const heightOf = ({ box }: Detection) => Math.round(box.bottom - box.top);
  const examine: PhotoFaces<Detector>['examine'] = async (image, { minConfidence, recognize, describe, landmarks }, call) => {
    const parameters = { confidenceThreshold: minConfidence, outputCroppedImage: false, outputVisualizedImage: false };
    const outcome = await findFaces(image, parameters, call, recognize ? recognition : undefined, models, { describe, landmarks });
    call.context.objects = outcome.analysis.detections.length;
    return outcome.response.found.map(({ finding, landmarks: points, descriptor }) => {
      const embedding = describe ? descriptor : undefined;
      return { finding, ...(points && { landmarks: points }), ...(embedding && { embedding }) };
    });
  };

  return {
    examine,
    find: async (image, minConfidence, recognize, call) => (await examine(image, { minConfidence, recognize }, call)).map((face) => face.finding),
    takeFace: (image, call, near) =>
      withFaces(image, call, async (analysis, pixels) => {
        const face = near ? nearestTo(analysis, near) : largestOf(analysis);
        if (!face) return undefined;
        const height = heightOf(face);
        if (height < recognition.smallestFace) throw new DetectdError('no_face', `${near ? 'The face chosen' : 'The largest face found'} is ${height} px tall, too small to recognize: send a photo whose face is at least ${recognition.smallestFace} px tall`);
        return { embedding: await describeFace(models, call)(pixels, face), box: boxOf(face) };
      }),
    registrationFace: (image, call, near) =>
      withFaces(image, call, async (analysis, pixels) => {
        // Without a box, a photo of several faces gives its subject only when one stands out (face-quality.ts).
        const chosen: { face?: Detection; problem?: FaceProblem } | undefined = near ? { face: nearestTo(analysis, near) } : photoSubject(analysis.detections, analysis, recognition.smallestFace);
        const face = chosen?.face;
        if (!face) return undefined;
        if (chosen.problem) return { box: boxOf(face), problem: chosen.problem };
        const landmarks = await faceLandmarks(models, call)(pixels, face);
        const { problem, warnings } = registrationQuality({ height: face.box.bottom - face.box.top, sharpness: await sharpness(pixels, face.box), landmarks }, recognition.smallestFace);
        // A face refused is not described: nothing is registered from it.
        return problem ? { box: boxOf(face), problem } : { embedding: await describeFace(models, call)(pixels, { ...face, landmarks }), box: boxOf(face), warnings };
      }),
    similarity: (a, b) => reportedSimilarity(faceSimilarity(a, b)),
  };
}
