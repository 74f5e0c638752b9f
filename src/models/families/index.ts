import type { TensorDeclaration } from '../types.js';
import { boxesByOutputShape, boxFamily } from './boxes/box-families.js';
import { endToEnd } from './boxes/end-to-end.js';
import type { FaceFamily } from './faces/face-family.js';
import { faceBoxFamily } from './faces/face-box-families.js';
import type { AnyFamily, ObjectFamily } from './family.js';
import { mobilenetEmbeddings } from './embeddings/mobilenet-embeddings.js';
import { fastPlateOcr, plateBoxes } from './plates/plate-families.js';
import { retinaface } from './faces/retinaface.js';
import { ultraface } from './faces/ultraface.js';
import { ultralytics } from './boxes/ultralytics.js';
import { yolox } from './boxes/yolox.js';
import { yunet } from './faces/yunet.js';

export type { FaceFamily, ObjectFamily };

/** The COCO detectors' output readers, in the order a model that names no family is matched by its output shape. */
const COCO_READERS = [endToEnd, ultralytics, yolox];
/** The face detectors' output readers. */
export const FACE_FAMILIES: readonly FaceFamily[] = [yunet, retinaface, ultraface];

/**
 * Every family the server can read: one line per family (its module brings its role, kind,
 * recognition and loader, families/family.ts). A model's configuration names one ("family"); a
 * model that names none is read by the first family that recognises its declared outputs, else as
 * a COCO detector by its output shape (FALLBACK_FAMILY).
 */
export const FAMILIES: readonly AnyFamily[] = [
  ...COCO_READERS.map(boxFamily),
  plateBoxes,
  ...FACE_FAMILIES.map(faceBoxFamily),
  fastPlateOcr,
  mobilenetEmbeddings,
];

/** A model that names no family and whose outputs no family recognises: a COCO detector, its reader told by its output shape. */
export const FALLBACK_FAMILY: AnyFamily = boxesByOutputShape(COCO_READERS);

export const familyNamed = (name: string): AnyFamily | undefined => FAMILIES.find((family) => family.name === name);

/** The family that recognises a model's declared outputs; undefined when none does. */
export const familyRecognising = (outputs: readonly TensorDeclaration[]): AnyFamily | undefined => FAMILIES.find((family) => family.recognises?.(outputs));

/** The face family whose outputs a model declares (by their names); undefined for any other model. */
export const faceFamilyForOutputs = (outputs: readonly TensorDeclaration[]): FaceFamily | undefined => FACE_FAMILIES.find((family) => family.matchesOutputs(outputs));

export const faceFamilyByName = (name: string): FaceFamily | undefined => FACE_FAMILIES.find((family) => family.name === name);
