import type { Service } from './core/service.js';
import { MODEL_CATALOGUE, catalogueModel } from './models/model-catalogue.js';
import { type ModelStep, serves, stepName } from './models/model-step.js';
import type { ServedModel } from './models/types.js';
import type { TaskTable } from './tasks/task-table.js';

/** The loaded models, as a service's model is looked up among them (the model registry). */
export interface LoadedModels {
  find(name: string): Pick<ServedModel, 'name' | 'role' | 'kind'> | undefined;
  defaultOf(step: ModelStep): Pick<ServedModel, 'name'> | undefined;
}

/** An enabled service this server cannot answer (503 `model_unavailable`): its model is not loaded. */
export interface ServiceWithoutModel {
  readonly service: Service;
  /** The model it names; null when it names none and no model of its kind is loaded. */
  readonly model: string | null;
  /** What is missing, in words: "model X is not loaded". */
  readonly problem: string;
  /** What puts it back in service, in words with the commands. */
  readonly fix: string;
}

/** What brings the model `name` back: its pull when the catalogue has it, else its file; then a restart, which reads the models folder. */
const bringBack = (name: string) =>
  `${catalogueModel(name) ? `\`npx detectd models pull ${name}\`` : `put ${name}.onnx back in the models folder`} and restart the server`;

/** What gives a server its first model serving `step`: the catalogue's first of its kind, pulled, else a file of one; then a restart. */
function firstModelOf(step: ModelStep): string {
  const known = MODEL_CATALOGUE.find((model) => model.kind === step.kind);
  return known
    ? `\`npx detectd models pull ${known.name}\` (\`npx detectd models pull --list\` shows every model that finds ${step.kind}) and restart the server`
    : `put a ${stepName(step)} in the models folder and restart the server (docs/models.md)`;
}

/** Whether `service` has its model on this server; when not, what it lacks and how to fix it. */
export function modelNotLoaded(service: Service, tasks: TaskTable, models: LoadedModels): ServiceWithoutModel | undefined {
  const task = tasks.find(service.type);
  if (!task || service.disabled) return undefined;
  const fallback = models.defaultOf(task.lead)?.name;
  if (service.model === null) {
    if (fallback !== undefined) return undefined;
    return { service, model: null, problem: task.lead.role === 'detector' ? `no model that finds ${task.lead.kind} is loaded` : `no ${stepName(task.lead)} is loaded`, fix: firstModelOf(task.lead) };
  }
  const named = models.find(service.model);
  if (named && serves(named, task.lead)) return undefined;
  const useDefault = fallback === undefined ? '' : `\`npx detectd service model ${service.id} --default\` answers it with the default model (${fallback}), or `;
  return { service, model: service.model, problem: `model ${service.model} is not loaded`, fix: `${useDefault}${bringBack(service.model)}` };
}

/** The services of `services` whose model this server has not loaded. */
export function servicesWithoutModel(services: readonly Service[], tasks: TaskTable, models: LoadedModels): ServiceWithoutModel[] {
  return services.flatMap((service) => modelNotLoaded(service, tasks, models) ?? []);
}

/** The model that answers an enabled service, and why it is that one. */
export interface ServiceModel {
  readonly service: Service;
  readonly model: string;
  /** "named by the service", or `defaultReason` (why its kind's default is the default). */
  readonly chosen: string;
}

/**
 * The model each enabled service of `services` whose task is led by `lead` is answered by: the one it names,
 * else the default of that step, `defaultReason` saying why that is the default. A service whose model is
 * not loaded is left out (modelNotLoaded says what it lacks).
 */
export function servedModels(services: readonly Service[], tasks: TaskTable, models: LoadedModels, lead: ModelStep, defaultReason: string): ServiceModel[] {
  const fallback = models.defaultOf(lead)?.name;
  return services.flatMap((service) => {
    const task = tasks.find(service.type);
    if (!task || task.lead.role !== lead.role || task.lead.kind !== lead.kind || modelNotLoaded(service, tasks, models)) return [];
    return service.model !== null ? [{ service, model: service.model, chosen: 'named by the service' }] : fallback !== undefined ? [{ service, model: fallback, chosen: defaultReason }] : [];
  });
}
