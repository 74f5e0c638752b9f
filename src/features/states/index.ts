import { type Feature, notRunning } from '../feature.js';
import { deepStackStatesRoutes } from './deepstack-states-routes.js';
import { states as statesMigration } from './migrations/0019-states.js';
import { stateExampleEmbedders } from './migrations/0020-state-example-embedders.js';
import { regionsSection } from './regions-card.js';
import { STATE_TABLES, StateStore } from './state-store.js';
import { stateOpenApiPaths, stateRoutes } from './state-routes.js';
import { STATES, statesTask } from './states-task.js';

/**
 * States by example (docs/states.md): the `states` task (each region of a camera's frame embedded
 * in one batch, answered by its nearest taught examples), each service's regions and examples
 * (their tables, REST routes, console card and commands), and DeepStack's custom route named by the camera.
 */
export const states: Feature = {
  name: 'states',
  docs: 'docs/states.md',
  consoleAssets: 'src/features/states/console',
  migrations: { '0019-states': statesMigration, '0020-state-example-embedders': stateExampleEmbedders },
  tables: STATE_TABLES,
  parts(server) {
    const store = server ? new StateStore(server.db) : undefined;
    const task = statesTask(store ?? { taught: notRunning });
    return {
      tasks: [task],
      deepStack: [{ task, routes: deepStackStatesRoutes(task, store ?? { sources: notRunning }) }],
      rest: [{ router: (context) => stateRoutes(task, store ?? notRunning(), context), openApiPaths: () => stateOpenApiPaths(task) }],
      consoleCards: [{ serviceType: task.type, section: regionsSection }],
    };
  },
  async addServiceCommands(service, served) {
    (await import('./state-commands.js')).addStateCommands(service, served, STATES);
  },
};
