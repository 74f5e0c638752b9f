import { DetectdError } from '../../core/errors.js';
import type { ImageAnalysis } from '../../core/pipeline.js';
import type { Detection } from '../../models/types.js';
import type { PeopleGallery, TakenFace } from '../people-gallery.js';
import type { FaceRecognition } from '../../faces/face-recognition.js';
import type { AnalysisCall } from '../analysis-call.js';
import type { ComposedModels } from '../../core/service-scheduler.js';
import { describeFace } from './describe-face.js';
import { detectFaces, findFaces } from './find-faces.js';

/**
 * The lowest detection confidence of the face taken from a registration photo or a comparison
 * (0.55, CodeProject.AI's own), whatever a caller's minimum says, so that a stray low-confidence box
 * is never registered as a person.
 */
const REGISTRATION_MIN_CONFIDENCE = 0.55;

/** The face of a photo a person is registered or compared by: the largest one found (the photo's subject, in a photo of several). */
function largestOf(analysis: ImageAnalysis): Detection | undefined {
  const area = (detection: Detection) => (detection.box.right - detection.box.left) * (detection.box.bottom - detection.box.top);
  return analysis.detections.reduce<Detection | undefined>((largest, detection) => (!largest || area(detection) > area(largest) ? detection : largest), undefined);
}

/** The face task's gallery of people: faces found and described as `analyse` finds them (find-faces.ts), and the service's people. */
export function peopleGallery(recognition: FaceRecognition, models: ComposedModels): PeopleGallery {
  return {
    async find(image: Buffer, minConfidence: number, recognize: boolean, call: AnalysisCall) {
      const parameters = { confidenceThreshold: minConfidence, outputCroppedImage: false, outputVisualizedImage: false };
      const { analysis, response } = await findFaces(image, parameters, call, recognize ? recognition : undefined, models);
      call.context.objects = analysis.detections.length;
      return response.found;
    },
    async largestFace(image: Buffer, call: AnalysisCall): Promise<TakenFace | undefined> {
      const { scheduler, limits, signal, context } = call;
      const analysis = await detectFaces({ bytes: image, scheduler, limits, signal, minScore: REGISTRATION_MIN_CONFIDENCE }, context.timings);
      try {
        const face = largestOf(analysis);
        if (!face) return undefined;
        const { box } = face;
        const height = Math.round(box.bottom - box.top);
        if (height < recognition.smallestFace) throw new DetectdError('no_face', `The largest face found is ${height} px tall, too small to recognize: send a photo whose face is at least ${recognition.smallestFace} px tall`);
        return { embedding: await describeFace(models, call)(analysis.pixels!, face), box: { left: Math.round(box.left), top: Math.round(box.top), right: Math.round(box.right), bottom: Math.round(box.bottom) } };
      } finally {
        analysis.pixels?.release();
      }
    },
    similarity: (a, b) => recognition.similarity(a, b),
    register: (serviceId, person, embeddings) => recognition.register(serviceId, person, embeddings),
    list: (serviceId) => recognition.list(serviceId),
    remove: (serviceId, person) => recognition.remove(serviceId, person),
  };
}
