/**
 * The layering of src/, checked in `npm test` (test/layering.test.ts). Data flows one way:
 * transports → tasks → core pipeline → scheduler → models → vision. docs/development.md ("Architecture") has the picture.
 */
const layer = (name, comment, from, to, toNot) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: toNot ? { path: to, pathNot: toNot } : { path: to },
});
/** The subfolders of `folder` (a path under the repository, ending in /) never import one another. */
const independentSubfolders = (name, comment, folder) => layer(name, comment, `^${folder}([^/]+)/`, `^${folder}[^/]+/`, `^${folder}$1/`);

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'An import cycle means two modules cannot be understood (or tested) apart; break it by moving the shared part down.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    layer('vision-is-a-leaf', 'vision/ (decode, letterbox, crop, draw) knows no model, task or transport: it owns the image types and imports nothing of ours.', '^src/vision/', '^src/', '^src/vision/'),
    layer('models-know-only-vision', 'models/ (runtimes, families, NMS) know no transport, storage, task, scheduler or account: they import vision/ and themselves only.', '^src/models/', '^src/', '^src/(models|vision)/|^src/(package-root|file-sha256)\\.ts$'),
    layer('runtimes-and-families-stay-in-models', 'Above models/, a model is its role\'s interface (models/role-models.ts: a Detector, an Embedder, …) loaded by load-models.ts: which runtime runs it and which family reads its output is models/\' business.', '^src/(?!models/)', '^src/models/(runtimes|families)/'),
    independentSubfolders(
      'families-are-independent',
      'A family folder (models/families/<kind>/: boxes, faces, plates, embeddings) never imports another\'s: what families share lives in models/families/*.ts, so adding one is its folder and its line in families/index.ts.',
      'src/models/families/',
    ),
    layer('scheduler-knows-only-models', 'scheduler/ decides who runs a model when; it knows models and images, nothing above.', '^src/scheduler/', '^src/', '^src/(scheduler|models|vision)/'),
    layer('core-is-transport-free', 'core/ (pipeline, errors, call context) knows no transport, task, console or storage.', '^src/core/', '^src/(transports|console|tasks|store|streaming)/|^src/(server|main|cli)\\.ts$'),
    layer('tasks-are-transport-free', 'tasks/ turn a request into a result; how it travels is the transports\' business.', '^src/tasks/', '^src/(transports|console|store|streaming)/|^src/(server|main|cli)\\.ts$'),
    layer('streaming-is-transport-free', 'streaming/ is the video stream engine (latest frame, model turns, tracking, liveness, open streams): it knows no protocol, socket or page; transports/stream-*/ speak the protocols over it.', '^src/streaming/', '^src/(transports|console|store|usage)/|^src/(server|main|cli)\\.ts$'),
    independentSubfolders('transports-are-independent', 'A front door never imports another: shared HTTP pieces live in src/transports/*.ts, shared stream logic below the transports.', 'src/transports/'),
    layer('domain-below-front-doors', 'accounts/, faces/ (face galleries), plates/ (known plates), limits/, store/ and usage/ serve every front door and know none of them, nor the pipeline.', '^src/(accounts|faces|plates|limits|store|usage)/', '^src/(transports|console|tasks|scheduler|models|streaming)/|^src/(server|main|cli)\\.ts$'),
    layer(
      'tasks-only-through-the-table',
      'A task is reached through the Task interface (tasks/task.ts) and the task table (tasks/index.ts): outside its folder only the table imports tasks/<name>/. (test/layering.test.ts also refuses a task\'s type as a literal outside them.)',
      '^src/(?!tasks/index\\.ts$|tasks/[^/]+/)',
      '^src/tasks/[^/]+/',
    ),
    independentSubfolders('tasks-know-no-other-task', 'A task folder never imports another\'s: what two tasks share lives in tasks/*.ts or below.', 'src/tasks/'),
    layer('gate-below-front-doors', 'gate/ is the one way in for every front door: it knows accounts, limits, the core and the Task interface, and no door, page or stream engine.', '^src/gate/', '^src/(transports|console|streaming|store|usage)/|^src/(server|main|cli)\\.ts$'),
    layer(
      'task-table-from-the-composition-roots',
      'The task table is built from tasks/index.ts only where a program is composed (server.ts for the server, cli.ts for the command line); every door, page and command is handed the TaskTable, so a test can serve a task of its own through all of them.',
      '^src/(?!(server|cli)\\.ts$)',
      '^src/tasks/index\\.ts$',
    ),
    {
      name: 'kysely-from-the-store',
      comment: 'Kysely\'s values come from store/kysely.ts (its CommonJS build, bundled into one file by the build), never from \'kysely\' itself: two copies would be two sets of classes. Types may come from \'kysely\'.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/kysely\\.ts$' },
      to: { path: 'node_modules/kysely/', dependencyTypesNot: ['type-only'] },
    },
    layer('one-composition-root', 'Only main.ts starts the server: everything else receives what it needs.', '^src/(?!main\\.ts$)', '^src/(server|main)\\.ts$'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
