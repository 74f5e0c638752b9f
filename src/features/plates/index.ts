import { DESCRIBED_MODELS, type Feature, notRunning } from '../feature.js';
import { deepStackAlprRoutes } from './deepstack-alpr-routes.js';
import { KNOWN_PLATE_TABLES, type KnownPlates, KnownPlateList } from './known-plate-list.js';
import { knownPlatesSection } from './known-plates-card.js';
import { knownPlateOpenApiPaths, knownPlateRoutes } from './known-plate-routes.js';
import { LICENSE_PLATE, licensePlateTask } from './license-plate-task.js';
import { PLATE_ERRORS } from './plate-errors.js';
import { knownPlates as knownPlatesMigration } from './migrations/0015-known-plates.js';

/** Known plates of plates described only: nothing of them runs. */
const DESCRIBED_ONLY: KnownPlates = { list: notRunning, add: notRunning, remove: notRunning, distance: notRunning, setDistance: notRunning, matcher: notRunning };

/**
 * Licence plates (docs/plates.md): the `license-plate` task (a plate detector, then a reader),
 * each service's known plates (their table, REST routes, console card and commands), and
 * CodeProject.AI's ALPR routes on the DeepStack door.
 */
export const plates: Feature = {
  name: 'plates',
  docs: 'docs/plates.md',
  consoleAssets: 'src/features/plates/console',
  migrations: { '0015-known-plates': knownPlatesMigration },
  tables: KNOWN_PLATE_TABLES,
  errors: PLATE_ERRORS,
  parts(server) {
    const known = server ? new KnownPlateList(server.db) : DESCRIBED_ONLY;
    const task = licensePlateTask(server?.models ?? DESCRIBED_MODELS, known);
    return {
      tasks: [task],
      deepStack: [{ task, routes: deepStackAlprRoutes(task) }],
      rest: [{ router: (context) => knownPlateRoutes(task, known, context), openApiPaths: () => knownPlateOpenApiPaths(task) }],
      consoleCards: [{ serviceType: task.type, section: knownPlatesSection }],
    };
  },
  async addServiceCommands(service, served) {
    (await import('./known-plate-commands.js')).addKnownPlateCommands(service, served, LICENSE_PLATE);
  },
};
