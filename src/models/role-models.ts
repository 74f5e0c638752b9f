import type { Classifier } from './classifier.js';
import type { Embedder } from './embedder.js';
import type { FaceDescriptorNet, FaceLandmarkNet } from './face-describer.js';
import type { ModelRole } from './model-roles.js';
import type { PlateReader } from './plates.js';
import type { Detector } from './types.js';

/**
 * What a loaded model is, by its role: each role (model-roles.ts) is one interface, whatever the
 * family or runtime behind it; a family's loader yields its role's (families/family.ts), so a
 * model's role tells what can be asked of it.
 */
export type RoleModel = Detector | PlateReader | FaceLandmarkNet | FaceDescriptorNet | Classifier | Embedder;

/** Every role has its interface: the compiler refuses a role of MODEL_ROLES that RoleModel leaves out. */
export const EVERY_ROLE_HAS_AN_INTERFACE: Exclude<ModelRole, RoleModel['role']> extends never ? true : never = true;
