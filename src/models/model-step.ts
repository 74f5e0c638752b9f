import type { ModelKind } from './model-roles.js';
import type { RoleModel } from './role-models.js';
import type { ServedModel } from './types.js';

/**
 * One model a task composes, in the order it runs them (as a Triton ensemble's steps): the role
 * and kind of model the step needs, and so (`Model`) the interface the step's model has. A
 * task's lead step is its service's model, of any role (one the service names or the default of
 * its role and kind); every later step is served by the first loaded model of its role and kind.
 */
export interface ModelStep<Model extends RoleModel = RoleModel> {
  readonly role: Model['role'];
  readonly kind: ModelKind;
  /** Run only for some inputs (a face's landmarks where its detector gives none): the task is served without it when none is loaded. */
  readonly optional?: boolean;
  /** How an operator gets a model for the step, for the answer and the start-up warning when none is loaded. */
  readonly remedy?: string;
  /**
   * A model file that arrives with the task's feature, served for the step when no configured model
   * serves it (load-models.ts): a feature brings its own zero-configuration model, and the core names no such file.
   */
  readonly builtIn?: string;
}

/**
 * Whether `model` serves `step`: it is of the step's role and kind. A model of a role is that
 * role's interface (role-models.ts: a family's loader yields it), so the step's interface is the model's.
 */
export function serves<Model extends RoleModel>(model: Pick<ServedModel, 'role' | 'kind'>, step: ModelStep<Model>): model is Model {
  return model.role === step.role && model.kind === step.kind;
}

/** A step's words in a message: "detector of objects". */
export const stepName = (step: ModelStep) => `${step.role} of ${step.kind}`;
