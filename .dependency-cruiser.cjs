/**
 * The layering of src/, checked in `npm test` (test/layering.test.ts). Data flows one way:
 * transports → tasks → core pipeline → scheduler → models → vision. Beside them, features/: one
 * folder per feature (its task, its routes on each door, its commands, its console card, its
 * migrations), which may import any of those layers' shared pieces and is imported by the
 * composition roots alone. docs/development.md ("Architecture") has the picture.
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
/**
 * A feature's files that speak to a door, the console or the CLI: its index.ts (which hands its parts
 * to them), files named `*-routes.ts`, `*-commands.ts` or `*-card.ts`, and a subfolder named for a
 * door (`deepstack/`, `compreface/`, `http/`, …, as under transports/). Its other files are its task.
 */
const FEATURE_EDGE = '^src/features/[^/]+/(?:index\\.ts$|[^/]*-(?:routes|commands|card)\\.ts$|(?:deepstack|compreface|http|stream-json|stream-nvision)/)';

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
    layer('core-is-transport-free', 'core/ (pipeline, errors, call context) knows no transport, task, console, storage or feature.', '^src/core/', '^src/(transports|console|tasks|store|streaming|features)/|^src/(server|main|cli)\\.ts$'),
    layer('tasks-are-transport-free', 'tasks/ turn a request into a result; how it travels is the transports\' business.', '^src/tasks/', '^src/(transports|console|store|streaming)/|^src/(server|main|cli)\\.ts$'),
    layer('streaming-is-transport-free', 'streaming/ is the video stream engine (latest frame, model turns, tracking, liveness, open streams): it knows no protocol, socket or page; transports/stream-*/ speak the protocols over it.', '^src/streaming/', '^src/(transports|console|store|usage)/|^src/(server|main|cli)\\.ts$'),
    layer(
      'features-from-the-composition-roots',
      'A feature (features/<name>/) and the registration list (features/index.ts) are read by the composition roots alone (server.ts, cli.ts): doors, gate, core, store, the console shell, the CLI shell and everything below know no feature, and get what the features declare (tasks, routes, API paths, commands, cards, migrations, error codes) through the interfaces they hand them (features/feature.ts).',
      '^src/(?!features/|(server|cli)\\.ts$)',
      '^src/features/',
    ),
    independentSubfolders('features-know-no-other-feature', 'A feature folder never imports another\'s: what two features share lives below features/ (tasks/*.ts, core/, a door\'s shared wire, …).', 'src/features/'),
    layer('features-below-the-registration', 'A feature is registered by features/index.ts and gathered by feature-set.ts; it imports neither, only the interface it implements (features/feature.ts).', '^src/features/[^/]+/', '^src/features/(index|feature-set)\\.ts$'),
    {
      name: 'feature-tasks-are-transport-free',
      comment:
        'Within a feature, its task (pipeline, parameters, finding shape, what it keeps) knows no door, page or command: only its edge (FEATURE_EDGE: index.ts, *-routes.ts, *-commands.ts, *-card.ts, a door-named subfolder) imports transports/, console/ or cli/, as a door\'s routes import its shared wire.',
      severity: 'error',
      from: { path: '^src/features/[^/]+/', pathNot: FEATURE_EDGE },
      to: { path: '^src/(transports|console|cli|streaming)/' },
    },
    independentSubfolders('transports-are-independent', 'A front door never imports another: shared HTTP pieces live in src/transports/*.ts, shared stream logic below the transports.', 'src/transports/'),
    layer('domain-below-front-doors', 'accounts/, limits/, store/ and usage/ serve every front door and know none of them, nor the pipeline.', '^src/(accounts|limits|store|usage)/', '^src/(transports|console|tasks|scheduler|models|streaming)/|^src/(server|main|cli)\\.ts$'),
    layer(
      'tasks-live-in-their-feature',
      'tasks/ holds what every task shares (the Task interface, the task table, the one run, the finding): a task itself lives in its feature\'s folder and is reached through the Task interface and the task table its feature\'s parts build, so no module imports a folder under tasks/. (test/layering.test.ts also refuses a task\'s type as a literal outside the feature folders.)',
      '^src/',
      '^src/tasks/[^/]+/',
    ),
    layer('gate-below-front-doors', 'gate/ is the one way in for every front door: it knows accounts, limits, the core and the Task interface, and no door, page, stream engine or feature.', '^src/gate/', '^src/(transports|console|streaming|store|usage|features)/|^src/(server|main|cli)\\.ts$'),
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
