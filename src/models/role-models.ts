import type { Classifier } from './classifier.js';
import type { Embedder } from './embedder.js';
import type { FaceDescriptorNet, FaceLandmarkNet } from './face-describer.js';
import type { PlateReader } from './plates.js';
import type { Detector } from './types.js';

/**
 * What a loaded model is, by its role: each role (model-roles.ts) is one interface, whatever the
 * family or runtime behind it; a family's loader yields its role's (families/family.ts), so a
 * model's role tells what can be asked of it.
 */
export type RoleModel = Detector | PlateReader | FaceLandmarkNet | FaceDescriptorNet | Classifier | Embedder;

/** The interface of the models of `Role`; a role of MODEL_ROLES that RoleModel leaves out is no `Role` here (families/family.ts AnyFamily maps every role through it, so the compiler refuses it). */
export type ModelOfRole<Role extends RoleModel['role']> = Extract<RoleModel, { readonly role: Role }>;
