import type { ObjectFamily } from './family.js';
import type { TensorDeclaration } from '../types.js';
import { endToEnd } from './end-to-end.js';
import type { FaceFamily } from './face-family.js';
import { retinaface } from './retinaface.js';
import { ultraface } from './ultraface.js';
import { ultralytics } from './ultralytics.js';
import { yolox } from './yolox.js';
import { yunet } from './yunet.js';

/**
 * Every object family the server can read (boxes of classes), whatever runtime ran the network.
 * Adding a family means adding its module and one line here. Order matters only for detection by
 * output shape: the first match wins.
 */
export const OBJECT_FAMILIES = [endToEnd, ultralytics, yolox] as const satisfies readonly ObjectFamily[];

/** Every face detector family, told apart by the names and shapes of their outputs. */
export const FACE_FAMILIES = [yunet, retinaface, ultraface] as const satisfies readonly FaceFamily[];

export type { FaceFamily, ObjectFamily };

export function familyByName(name: string): ObjectFamily | undefined {
  return OBJECT_FAMILIES.find((family) => family.name === name);
}

export function familyForOutput(dims: readonly number[]): ObjectFamily | undefined {
  return OBJECT_FAMILIES.find((family) => family.matchesOutput(dims));
}

export function faceFamilyByName(name: string): FaceFamily | undefined {
  return FACE_FAMILIES.find((family) => family.name === name);
}

/** The face family whose outputs a model declares; undefined for any other model (an object detector). */
export function faceFamilyForOutputs(outputs: readonly TensorDeclaration[]): FaceFamily | undefined {
  return FACE_FAMILIES.find((family) => family.matchesOutputs(outputs));
}
