import { MODEL_KINDS, type ModelKind, type ModelRole } from '../model-roles.js';
import type { TensorDeclaration } from '../types.js';
import { endToEnd } from './end-to-end.js';
import type { FaceFamily } from './face-family.js';
import type { ObjectFamily } from './family.js';
import { plateDetector } from './plate-detector.js';
import { PLATE_READER_FAMILY } from './plate-reader.js';
import { retinaface } from './retinaface.js';
import { ultraface } from './ultraface.js';
import { ultralytics } from './ultralytics.js';
import { yolox } from './yolox.js';
import { yunet } from './yunet.js';

export type { FaceFamily, ObjectFamily };

/**
 * One family the server reads, as the registry lists it: what its outputs are (`reads`: the
 * runtime's loader for that kind of output), and the role and kind of its models unless their
 * configuration says otherwise.
 */
export type FamilyEntry = { readonly role: ModelRole; readonly kind: ModelKind } & (
  | { readonly reads: 'boxes'; readonly family: ObjectFamily }
  | { readonly reads: 'plate-boxes'; readonly family: ObjectFamily }
  | { readonly reads: 'face-boxes'; readonly family: FaceFamily }
  | { readonly reads: 'text'; readonly family: { readonly name: string } }
);

/** What a family's outputs are: the runtime serves each with one loader (runtimes/onnx/onnx-model.ts). */
export type FamilyOutputs = FamilyEntry['reads'];

const detector = 'detector' as const;

/**
 * Every family the server can read, whatever runtime ran the network: a model's configuration
 * names one ("family"), which says how its outputs are read and its role and kind. Adding a
 * family means its module and one line here. A model that names none is read by its outputs:
 * a face family's output names, else the first box family whose output shape matches (COCO
 * detectors), in this order.
 */
export const FAMILIES: readonly FamilyEntry[] = [
  { reads: 'boxes', family: endToEnd, role: detector, kind: MODEL_KINDS.objects },
  { reads: 'boxes', family: ultralytics, role: detector, kind: MODEL_KINDS.objects },
  { reads: 'boxes', family: yolox, role: detector, kind: MODEL_KINDS.objects },
  { reads: 'plate-boxes', family: plateDetector, role: detector, kind: MODEL_KINDS.plates },
  { reads: 'face-boxes', family: yunet, role: detector, kind: MODEL_KINDS.faces },
  { reads: 'face-boxes', family: retinaface, role: detector, kind: MODEL_KINDS.faces },
  { reads: 'face-boxes', family: ultraface, role: detector, kind: MODEL_KINDS.faces },
  { reads: 'text', family: { name: PLATE_READER_FAMILY }, role: 'reader', kind: MODEL_KINDS.plateText },
];

export const familyNamed = (name: string): FamilyEntry | undefined => FAMILIES.find((entry) => entry.family.name === name);

/** The face family whose outputs a model declares (by their names); undefined for any other model. */
export function faceFamilyForOutputs(outputs: readonly TensorDeclaration[]): FaceFamily | undefined {
  return FAMILIES.flatMap((entry) => (entry.reads === 'face-boxes' && entry.family.matchesOutputs(outputs) ? [entry.family] : []))[0];
}

/** The box family of COCO detectors whose output has this shape: the fallback for a model that declares no family. */
export function objectFamilyForOutput(dims: readonly number[]): ObjectFamily | undefined {
  return FAMILIES.flatMap((entry) => (entry.reads === 'boxes' && entry.family.matchesOutput(dims) ? [entry.family] : []))[0];
}

/** The families a model whose output shape says nothing may name, for a refusal's words. */
export const objectFamilyNames = () => FAMILIES.flatMap((entry) => (entry.reads === 'boxes' ? [entry.family.name] : []));

/** The face detector families (the face evaluation's calibration, the tests). */
export const FACE_FAMILIES: readonly FaceFamily[] = FAMILIES.flatMap((entry) => (entry.reads === 'face-boxes' ? [entry.family] : []));

export const faceFamilyByName = (name: string): FaceFamily | undefined => FACE_FAMILIES.find((family) => family.name === name);
