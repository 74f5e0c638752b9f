import type { ComposedCall, ComposedModels } from '../../../core/service-scheduler.js';
import type { FaceDescriptorNet, FaceLandmarkNet } from '../../../models/face-describer.js';
import { MODEL_KINDS } from '../../../models/model-roles.js';
import type { ModelStep } from '../../../models/model-step.js';
import type { Detection, Detector } from '../../../models/types.js';
import type { Point, RgbImage } from '../../../vision/image.js';

/** The server loads both at start-up whenever it serves the face task (load-models.ts BUILT_IN): one missing is a server fault, said plainly. */
const LOADED_AT_START_UP = 'a server serving faces loads it at start-up; see its start-up log';

/** The face task's models, in the order it runs them: the service's detector, the landmarker where the detector gives no landmarks, the describer. */
export const FACE_DETECTOR: ModelStep<Detector> = { role: 'detector', kind: MODEL_KINDS.faces };
export const FACE_LANDMARKER: ModelStep<FaceLandmarkNet> = { role: 'landmarker', kind: MODEL_KINDS.faceLandmarks, optional: true, remedy: LOADED_AT_START_UP };
export const FACE_DESCRIBER: ModelStep<FaceDescriptorNet> = { role: 'describer', kind: MODEL_KINDS.faceDescriptors, remedy: LOADED_AT_START_UP };

/** A face found in `image` (full-resolution pixels) → its five landmarks: the detector's, else the landmarker's from its box, run by its scheduler in the call's lane. */
export function faceLandmarks(models: ComposedModels, call: ComposedCall): (image: RgbImage, face: Pick<Detection, 'box' | 'landmarks'>) => Promise<readonly Point[]> {
  return async (image, face) => face.landmarks ?? (await models.run(FACE_LANDMARKER, call, (landmarker) => landmarker.landmarks(image, face.box)));
}

/**
 * A face found in `image` (full-resolution pixels) → its descriptor: its five landmarks (the
 * detector's, else the landmarker's from its box), then the describer, each run by its model's
 * scheduler in the call's lane and within its deadline.
 */
export function describeFace(models: ComposedModels, call: ComposedCall): (image: RgbImage, face: Pick<Detection, 'box' | 'landmarks'>) => Promise<Float32Array> {
  const landmarksOf = faceLandmarks(models, call);
  return async (image, face) => {
    const landmarks = await landmarksOf(image, face);
    return models.run(FACE_DESCRIBER, call, (describer) => describer.describe(image, landmarks));
  };
}
