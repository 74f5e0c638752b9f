import { DetectdError } from '../../../core/errors.js';
import type { ImageAnalysis } from '../../../core/pipeline.js';
import type { Detection, Detector } from '../../../models/types.js';
import type { PeopleGallery } from '../people-gallery.js';
import { type FaceProblem, photoSubject, registrationQuality } from '../gallery/face-quality.js';
import type { Box, RgbImage } from '../../../vision/image.js';
import { sharpness } from '../../../vision/sharpness.js';
import type { FaceRecognition } from '../gallery/face-recognition.js';
import type { AnalysisCall } from '../../../tasks/analysis-call.js';
import type { ComposedModels } from '../../../core/service-scheduler.js';
import { describeFace, faceLandmarks } from './describe-face.js';
import { detectFaces, findFaces } from './find-faces.js';

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

/** The face task's gallery of people: faces found and described as `analyse` finds them (find-faces.ts), and the service's people. */
export function peopleGallery(recognition: FaceRecognition, models: ComposedModels): PeopleGallery<Detector> {
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
  const examine: PeopleGallery<Detector>['examine'] = async (image, { minConfidence, recognize, describe, landmarks }, call) => {
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
    similarity: (a, b) => recognition.similarity(a, b),
    register: (serviceId, person, samples) => recognition.register(serviceId, person, samples),
    addNegative: (serviceId, person, embedding) => recognition.addNegative(serviceId, person, embedding),
    list: (serviceId) => recognition.list(serviceId),
    remove: (serviceId, person) => recognition.remove(serviceId, person),
  };
}
