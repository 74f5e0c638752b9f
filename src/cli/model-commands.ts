import type { Command } from 'commander';
import { loadConfig, modelSourcesOf } from '../config.js';
import type { ModelLoad } from '../models/load-models.js';
import { defaultReasonOf, modelNameOf } from '../models/model-repository.js';
import { MODEL_KINDS } from '../models/model-roles.js';
import { modelsByName } from '../models/registry.js';
import { isDetector } from '../models/types.js';
import { DEEPSTACK_RESERVED_MODEL_NAMES } from '../transports/deepstack/deepstack-route-table.js';
import { asConfiguration, loadModelCode, type OutputOptions, printResult, runCommand, table } from './command-context.js';
import { EXIT } from './exit-codes.js';
import { addPullCommand } from './model-pull.js';

/** `load` as listed; `chosen`: why it is its kind's default, when it is. */
function modelJson(load: ModelLoad, chosen: string | undefined, embedded: boolean) {
  const common = { name: modelNameOf(load.path), file: load.path, default: chosen !== undefined, ...(chosen !== undefined && { chosen }), embedded };
  if ('refused' in load) return { ...common, status: 'refused' as const, reason: load.refused.reason };
  const detector = load.model;
  // A model of another role (a plate reader) is run in its task's pipeline, not named by a service: no labels to show.
  if (!isDetector(detector)) return { ...common, status: 'composed' as const, role: detector.role, kind: detector.kind, family: detector.family, runtime: detector.runtime };
  return {
    ...common,
    status: 'ok' as const,
    family: detector.family,
    runtime: detector.runtime,
    input_size: detector.inputSize.width,
    labels: detector.labels,
    label_source: detector.labelSource,
    aliases: detector.aliases,
    threads: detector.settings.threads,
    concurrency: detector.settings.concurrency,
    nms_iou: detector.settings.nmsIou,
  };
}

/** Why the server would refuse the models' names and aliases together (ModelRegistry's rule), or undefined. */
function namesProblem(loads: readonly ModelLoad[]): string | undefined {
  try {
    modelsByName(
      loads.flatMap((load) => ('model' in load ? [load.model] : [])),
      DEEPSTACK_RESERVED_MODEL_NAMES,
    );
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * `detectd models list`: what the server would serve with these settings, each model loaded and
 * checked as at start-up; and `detectd models pull` (model-pull.ts).
 */
export function addModelCommands(program: Command): void {
  const models = program.command('models').description('the models this server serves (DETECTD_MODEL, the models folder), and downloading known-good ones');
  models
    .command('list')
    .description('load and check every configured model as the server would, and list them (exit 1 when one is refused)')
    .option('--json', 'print {"models": [...]}')
    .action((options: OutputOptions) =>
      runCommand(options, async () => {
        const { tryModelFiles, withEmbeddedDetectors } = await loadModelCode();
        const config = loadConfig();
        const sources = modelSourcesOf(config);
        const configured = await asConfiguration(() => tryModelFiles(sources, config.inference, false));
        // As the server does: the embedded models of their kinds where no file of theirs is configured (models/model-repository.ts says why each default).
        const { loads, embedded } = await withEmbeddedDetectors(sources, configured, config.inference);
        const detectorOf = (load: ModelLoad) => ('model' in load && isDetector(load.model) ? load.model : undefined);
        // The server's defaults: the first detector of each kind, wherever the others sort among them.
        const chosen = new Map<ModelLoad, string>();
        for (const kind of Object.values(MODEL_KINDS)) {
          const ofKind = loads.filter((load) => detectorOf(load)?.kind === kind);
          const [first] = ofKind;
          if (first === undefined) continue;
          const told = { embedded: embedded.has(first), others: ofKind.slice(1).map((load) => modelNameOf(load.path)) };
          chosen.set(first, defaultReasonOf(kind, sources, told));
        }
        const listed = loads.map((load) => modelJson(load, chosen.get(load), embedded.has(load)));
        const refused = listed.flatMap((model) => (model.status === 'refused' ? [`${model.name}: ${model.reason}`] : []));
        const names = namesProblem(loads);
        const rows = listed.map((model) =>
          model.status === 'ok'
            ? [model.name + (model.default ? ' *' : '') + (model.embedded ? ' (embedded)' : ''), 'ok', model.family, String(model.input_size), `${model.labels.length} (${model.label_source})`, model.file]
            : model.status === 'composed'
              ? [model.name, `ok (${model.role} of ${model.kind})`, model.family, '-', '-', model.file]
              : [model.name + (model.default ? ' *' : ''), 'REFUSED', '-', '-', '-', model.file],
        );
        printResult(
          options,
          { models: listed, ...(names && { names_refused: names }) },
          table(['NAME', 'STATUS', 'FAMILY', 'INPUT', 'LABELS', 'FILE'], rows) +
            '* default model of its kind: it answers the services of that kind that name none\n' +
            listed.flatMap((model) => (model.chosen === undefined ? [] : [`* ${model.name}: ${model.chosen}\n`])).join('') +
            refused.map((line) => `refused ${line}\n`).join('') +
            (names ? `refused: ${names}\n` : ''),
        );
        if (refused.length > 0 || names) process.exitCode = EXIT.refused;
      }),
    );
  addPullCommand(models);
}
