import type { OnnxFamily } from './family.js';
import type { TensorDeclaration } from '../onnx/onnx-file.js';
import { endToEnd } from './end-to-end.js';
import type { FaceFamily } from './face-family.js';
import { retinaface } from './retinaface.js';
import { ultraface } from './ultraface.js';
import { ultralytics } from './ultralytics.js';
import { yolox } from './yolox.js';
import { yunet } from './yunet.js';

/**
 * Every ONNX family the server can read. Adding a family means adding its module and one line
 * here. Order matters only for detection by output shape: the first match wins.
 */
export const ONNX_FAMILIES = [endToEnd, ultralytics, yolox] as const satisfies readonly OnnxFamily[];

/** Every face detector family, told apart by the names and shapes of their outputs. */
export const FACE_FAMILIES = [yunet, retinaface, ultraface] as const satisfies readonly FaceFamily[];

export type { FaceFamily, OnnxFamily };

export function familyByName(name: string): OnnxFamily | undefined {
  return ONNX_FAMILIES.find((family) => family.name === name);
}

export function familyForOutput(dims: readonly number[]): OnnxFamily | undefined {
  return ONNX_FAMILIES.find((family) => family.matchesOutput(dims));
}

export function faceFamilyByName(name: string): FaceFamily | undefined {
  return FACE_FAMILIES.find((family) => family.name === name);
}

/** The face family whose outputs a model declares; undefined for any other model (an object detector). */
export function faceFamilyForOutputs(outputs: readonly TensorDeclaration[]): FaceFamily | undefined {
  return FACE_FAMILIES.find((family) => family.matchesOutputs(outputs));
}
