import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
// Types only: the package is ESM with no `require` entry, and mocha's parallel workers may load this file through require.
import type { ICruiseResult } from 'dependency-cruiser';
import ts from 'typescript';
import type { Feature } from '../src/features/feature.js';
import { FEATURES, TASK_DESCRIPTIONS } from '../src/features/index.js';
import { MODEL_KINDS } from '../src/models/model-roles.js';

const run = promisify(execFile);
const DEPCRUISE = path.resolve('node_modules/.bin/depcruise');

const CONFIG = path.resolve('.dependency-cruiser.cjs');

/** What dependency-cruiser found in one tree: whether its rules hold, their readable report, and the modules with their imports. */
interface Cruise {
  readonly ok: boolean;
  readonly report: string;
  readonly modules: readonly { source: string; dependencies: readonly { resolved: string }[] }[];
}

/**
 * Runs the layering rules (.dependency-cruiser.cjs) over `root`/src: each run parses every module,
 * so the tests ask one run of a tree both questions (its violations, its folders' imports).
 */
async function cruise(root: string): Promise<Cruise> {
  // depcruise exits with the number of violations: a tree that breaks the rules still prints its result.
  const stdout = await run(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'json'], { cwd: root, maxBuffer: 64 * 1024 * 1024 }).then(
    (done) => done.stdout,
    (error: { stdout?: string }) => {
      if (!error.stdout) throw error;
      return error.stdout;
    },
  );
  const result = JSON.parse(stdout) as ICruiseResult;
  // Each violation as its rule and import (a cycle with the modules around it).
  const report = result.summary.violations
    .map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}${violation.cycle ? ` (cycle: ${violation.cycle.map((step) => step.name).join(' → ')})` : ''}`)
    .join('\n');
  return { ok: result.summary.error === 0, report, modules: result.modules };
}

/** The folder of src/ a module lives in (`core`, `transports`), or the module itself for a file at the top (`server.ts`). */
const folderOf = (source: string) => source.split('/')[1];

/**
 * Cycles between the folders of a cruised src/ (a module of one folder importing another folder, which
 * imports back, directly or through others), type imports included: each as "a → b → a".
 */
function folderCycles({ modules }: Cruise): string[] {
  const edges = new Map<string, Set<string>>();
  for (const module of modules.filter((each) => each.source.startsWith('src/'))) {
    for (const { resolved } of module.dependencies.filter((dependency) => dependency.resolved.startsWith('src/'))) {
      const [from, to] = [folderOf(module.source), folderOf(resolved)];
      if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  // A cycle through a folder is a path from one of its neighbours back to it.
  const cycles = new Set<string>();
  for (const start of edges.keys()) {
    const path = new Map<string, string>([[start, start]]);
    const queue = [start];
    while (queue.length > 0) {
      const folder = queue.shift()!;
      for (const next of edges.get(folder) ?? []) {
        // Named by its folders, sorted, whichever of them the search started from.
        if (next === start) cycles.add(path.get(folder)!.split(' → ').sort().join(' ⇄ '));
        else if (!path.has(next)) {
          path.set(next, `${path.get(folder)} → ${next}`);
          queue.push(next);
        }
      }
    }
  }
  return [...cycles];
}

/** A task's own files: its folder (a feature's, or one under tasks/); anywhere else a task is known only through the Task interface. */
const OWNS_TASKS = /^(?:tasks|features)\/[^/]+\//;

/**
 * String and template literals under `root`/src, outside the task and feature folders, that
 * contain a task's type (`'object-detection'`, `'/api/v1/object-detection/stream'`): each as
 * "file:line literal". Comments may name a task; code may not.
 */
function taskLiterals(root: string, types: readonly string[]): string[] {
  // A link to another site (a model's upstream repository) names none of our tasks, whatever its path says;
  // a type counts as a word of its own: a model file's name (`…-license-plates-end2end`) that contains one names no task.
  return literalsUnder(root, OWNS_TASKS, (text) => !/^https:\/\//.test(text) && types.some((type) => new RegExp(`(?<![\\w-])${type}(?![\\w-])`).test(text)));
}

/** String and template literals under `root`/src, outside the files `skip` matches, whose text `matches` (in the file, relative to src/): each as "file:line literal". */
function literalsUnder(root: string, skip: RegExp, matches: (text: string, file: string) => boolean): string[] {
  const found: string[] = [];
  const source = path.join(root, 'src');
  for (const file of fs.readdirSync(source, { recursive: true, encoding: 'utf8' })) {
    const relative = file.split(path.sep).join('/');
    if (!relative.endsWith('.ts') || skip.test(relative)) continue;
    const tree = ts.createSourceFile(relative, fs.readFileSync(path.join(source, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const literal = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node);
      if (literal && matches(node.text, relative)) found.push(`src/${relative}:${tree.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.getText()}`);
      node.forEachChild(visit);
    };
    visit(tree);
  }
  return found;
}

/**
 * Identifiers, property names and string literals under `root`/src, outside the folder of the feature
 * that declares it (Feature.errors), that name one of a feature's error codes (`known_plate_exists`,
 * a word of a text): each as "file:line text". The core's catalogue (core/errors.ts) holds the
 * generic codes only; a feature's come with its Feature. Comments may name them.
 */
function featureCodesOutsideTheirFeature(root: string, features: readonly Feature[]): string[] {
  const owners = features.flatMap((feature) => Object.keys(feature.errors ?? {}).map((code) => ({ code, folder: `features/${feature.name}/`, word: new RegExp(`(?<!\\w)${code}(?!\\w)`) })));
  const found: string[] = [];
  const source = path.join(root, 'src');
  for (const file of fs.readdirSync(source, { recursive: true, encoding: 'utf8' })) {
    const relative = file.split(path.sep).join('/');
    const foreign = owners.filter((owner) => !relative.startsWith(owner.folder));
    if (!relative.endsWith('.ts') || foreign.length === 0) continue;
    const tree = ts.createSourceFile(relative, fs.readFileSync(path.join(source, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const text = ts.isIdentifier(node) || ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node) ? node.text : undefined;
      if (text !== undefined && foreign.some((owner) => owner.word.test(text))) found.push(`src/${relative}:${tree.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.getText()}`);
      node.forEachChild(visit);
    };
    visit(tree);
  }
  return found;
}

/** The model registries: the kinds, the families and the catalogue of downloadable models, where a kind may be written out. */
const MODEL_REGISTRIES = /^models\/(?:model-roles\.ts$|model-catalogue\.ts$|families\/)/;

/**
 * String literals under `root`/src, outside the model registries, that are a model kind
 * (`'objects'`, `'faces'`, `'plates'`, …: model-roles.ts MODEL_KINDS), each as "file:line literal":
 * everything else names a kind through MODEL_KINDS or a task's declared steps.
 */
function kindLiterals(root: string): string[] {
  const kinds = new Set<string>(Object.values(MODEL_KINDS));
  // A feature may write its own folder's name (Feature.name), which may be a kind's too (`plates`).
  return literalsUnder(root, MODEL_REGISTRIES, (text, file) => kinds.has(text) && !file.startsWith(`features/${text}/`));
}

/** DeepStack's wire names (its box fields, a face's `userid`, an answer's `success`) and the door itself (`deepStack`, `DeepStackCapabilities`, CodeProject.AI, its `FaceApi`). */
const DEEPSTACK_WIRE_NAMES = /\b(?:[xy]_(?:min|max)|userid|success)\b|deep_?stack|code_?project|faceapi/i;

/**
 * A feature's files that are not its task: its edge (index.ts, which hands its parts over, its routes,
 * commands and cards, a subfolder named for a door: FEATURE_EDGE in .dependency-cruiser.cjs), where
 * each door writes its wire, its error table (`*-errors.ts`, Feature.errors: what its routes on every
 * door refuse, in the words of their fields, such as a face registration's `userid`), and any
 * subfolder but `task/` (what it keeps: faces' gallery/, whose people every door and its tables name by `userid`).
 */
const NOT_A_TASK = /^features\/[^/]+\/(?:index\.ts$|[^/]*-(?:routes|commands|card|errors)\.ts$|(?!task\/)[^/]+\/)/;

/**
 * Identifiers, property names and string literals under `root`/src/tasks, and in the task files of
 * the features (all but NOT_A_TASK), that name a DeepStack wire field or the door, each as
 * "file:line text": a task says what it finds in its own terms, and the DeepStack door
 * (transports/deepstack/) or the feature's own routes on it map them onto its fields. Comments may name them.
 */
function deepStackNamesInTasks(root: string): string[] {
  const found: string[] = [];
  const source = path.join(root, 'src');
  for (const file of fs.readdirSync(source, { recursive: true, encoding: 'utf8' })) {
    const inSource = file.split(path.sep).join('/');
    if (!inSource.endsWith('.ts') || !/^(?:tasks|features\/[^/]+)\//.test(inSource) || NOT_A_TASK.test(inSource)) continue;
    const relative = `src/${inSource}`;
    const tree = ts.createSourceFile(relative, fs.readFileSync(path.join(source, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const text = ts.isIdentifier(node) || ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node) ? node.text : undefined;
      if (text !== undefined && DEEPSTACK_WIRE_NAMES.test(text)) found.push(`${relative}:${tree.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.getText()}`);
      node.forEachChild(visit);
    };
    visit(tree);
  }
  return found;
}

/** A copy of src/ (with tsconfig.json, and node_modules linked so that packages resolve as here) in a new temporary folder, changed by `change`; its root. */
function changedCopy(prefix: string, change: (root: string) => void): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.cpSync('src', path.join(copy, 'src'), { recursive: true });
  fs.copyFileSync('tsconfig.json', path.join(copy, 'tsconfig.json'));
  fs.symlinkSync(path.resolve('node_modules'), path.join(copy, 'node_modules'));
  change(copy);
  return copy;
}

/** `make`'s value, made when first asked for: a tree is cruised once however many tests ask about it, and not at all when none runs. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

describe('layering of src/ (dependency-cruiser rules in .dependency-cruiser.cjs)', () => {
  const copies: string[] = [];
  const copy = (prefix: string, change: (root: string) => void) => {
    const root = changedCopy(prefix, change);
    copies.push(root);
    return root;
  };
  after(() => {
    for (const root of copies) fs.rmSync(root, { recursive: true, force: true });
  });
  const checkout = once(() => cruise(process.cwd()));
  /** The folders of the first two features (a feature's folder is its name). */
  const [first, second] = FEATURES.map((feature) => feature.name);
  /** The front doors, gate, core and store, each of which knows no feature. */
  const FEATURE_FREE = ['transports', 'gate', 'core', 'store'];
  /** A feature that brings error codes of its own, and the first of them. */
  const coding = FEATURES.find((feature) => Object.keys(feature.errors ?? {}).length > 0)!;
  const [ownCode] = Object.keys(coding.errors!);
  /**
   * A copy of src/ breaking rules: a model module reaching up into a transport, a stream module
   * reaching into a feature's folder, a feature into another's, a feature's task into a door (and a
   * door naming a task, Kysely's values taken from the package).
   */
  const violating = once(() => {
    const root = copy('detectd-layers-', (root) => {
      fs.appendFileSync(path.join(root, 'src/models/nms.ts'), "\nimport '../transports/http/app.js';\n");
      fs.writeFileSync(path.join(root, 'src/streaming/reach-in.ts'), `import '../features/${first}/index.js';\n`);
      // A type is reaching in too: the core, a door, the gate or the store may not even name a feature's.
      for (const folder of FEATURE_FREE) fs.writeFileSync(path.join(root, `src/${folder}/reach-in.ts`), `import type * as reached from '../features/${first}/index.js';\nexport type Reached = typeof reached;\n`);
      // The core's catalogue taking a feature's code back.
      fs.appendFileSync(path.join(root, 'src/core/errors.ts'), `\nexport const TAKEN = { ${ownCode}: { status: 400, summary: 'taken back' } };\n`);
      fs.writeFileSync(path.join(root, `src/features/${second}/reach-across.ts`), `import '../${first}/index.js';\n`);
      // A feature's task may not reach a door; its routes (a file named *-routes.ts) may.
      fs.writeFileSync(path.join(root, `src/features/${first}/wired.ts`), "import '../../transports/http/rest-body.js';\n");
      fs.writeFileSync(path.join(root, `src/features/${first}/wired-routes.ts`), "import '../../transports/http/rest-body.js';\n");
      fs.writeFileSync(path.join(root, 'src/transports/fixed-path.ts'), `export const FIXED = '/api/v1/${TASK_DESCRIPTIONS.types[0]}/stream';\n`);
      fs.writeFileSync(path.join(root, 'src/usage/own-kysely.ts'), "import { sql } from 'kysely';\nexport const now = sql`CURRENT_TIMESTAMP`;\n");
      fs.writeFileSync(path.join(root, 'src/usage/kysely-types.ts'), "import type { Kysely } from 'kysely';\nexport type Any = Kysely<unknown>;\n");
    });
    return { root, cruised: cruise(root) };
  });

  it('has no import cycle and no import against the direction transports → tasks → core → scheduler → models → vision', async () => {
    const { ok, report } = await checkout();
    expect(ok, `layering violations:\n${report}`).to.equal(true);
  });

  it('fails on a violation, naming the rule and the import', async () => {
    const { ok, report } = await violating().cruised;
    expect(ok).to.equal(false);
    expect(report).to.contain('models-know-only-vision').and.to.contain('nms.ts');
  });

  it('takes Kysely\'s values from store/kysely.ts only (one copy of its classes); its types from anywhere', async () => {
    const { report } = await violating().cruised;
    expect(report).to.contain('kysely-from-the-store: src/usage/own-kysely.ts').and.not.to.contain('kysely-types.ts');
  });

  it('has no cycle between folders: a folder never imports, even for a type, a folder that imports it', async () => {
    expect(folderCycles(await checkout())).to.deep.equal([]);
    // core/ already imports scheduler/ (the pipeline); a type import back makes the two folders a cycle.
    const reachingUp = copy('detectd-folders-', (root) =>
      fs.writeFileSync(path.join(root, 'src/scheduler/reach-up.ts'), "import type { CallContext } from '../core/call-context.js';\nexport type Reached = CallContext;\n"),
    );
    expect(folderCycles(await cruise(reachingUp))).to.deep.equal(['core ⇄ scheduler']);
  });

  it('names no task outside its folder: no task type as a literal outside the task and feature folders', () => {
    expect(taskLiterals(process.cwd(), TASK_DESCRIPTIONS.types)).to.deep.equal([]);
    expect(taskLiterals(violating().root, TASK_DESCRIPTIONS.types)).to.deep.equal([`src/transports/fixed-path.ts:1 '/api/v1/${TASK_DESCRIPTIONS.types[0]}/stream'`]);
  });

  it('keeps the features apart: none is imported but by the composition roots, none imports another, a feature\'s task imports no door (its routes may)', async () => {
    const { report } = await violating().cruised;
    expect(report)
      .to.contain(`features-from-the-composition-roots: src/streaming/reach-in.ts → src/features/${first}/index.ts`)
      .and.to.contain(`features-know-no-other-feature: src/features/${second}/reach-across.ts → src/features/${first}/index.ts`)
      .and.to.contain(`feature-tasks-are-transport-free: src/features/${first}/wired.ts → src/transports/http/rest-body.ts`)
      .and.not.to.contain('wired-routes.ts');
    for (const folder of FEATURE_FREE) expect(report).to.contain(`features-from-the-composition-roots: src/${folder}/reach-in.ts → src/features/${first}/index.ts`);
  });

  it('names no feature\'s error code outside its folder: the core\'s catalogue holds the generic codes, each feature\'s own come with its Feature', () => {
    expect(featureCodesOutsideTheirFeature(process.cwd(), FEATURES)).to.deep.equal([]);
    const errorsFile = fs.readFileSync(path.join(violating().root, 'src/core/errors.ts'), 'utf8').split('\n');
    const line = errorsFile.findIndex((text) => text.startsWith('export const TAKEN')) + 1;
    expect(featureCodesOutsideTheirFeature(violating().root, FEATURES)).to.deep.equal([`src/core/errors.ts:${line} ${ownCode}`]);
  });
  it('names no model kind as a literal outside the model registries (model-roles.ts, families/, the catalogue)', () => {
    expect(kindLiterals(process.cwd())).to.deep.equal([]);
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-kinds-'));
    try {
      fs.cpSync('src', path.join(copy, 'src'), { recursive: true });
      fs.writeFileSync(path.join(copy, 'src/tasks/kind.ts'), "export const detects = 'plates';\nexport const registry = `faces`;\n");
      expect(kindLiterals(copy)).to.have.members(["src/tasks/kind.ts:1 'plates'", 'src/tasks/kind.ts:2 `faces`']);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it('keeps DeepStack\'s wire out of the tasks: nothing under src/tasks/, nor a feature\'s task, names x_min, userid, success or the door itself (the door and the feature\'s routes on it own them)', () => {
    expect(deepStackNamesInTasks(process.cwd())).to.deep.equal([]);
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-wire-'));
    try {
      for (const folder of ['src/tasks', 'src/features']) fs.cpSync(folder, path.join(copy, folder), { recursive: true });
      const wire = "export const answer = { success: true, x_min: 0 };\nexport const field = 'userid';\nexport const offers = { deepStack: { detection: true } };\n";
      fs.writeFileSync(path.join(copy, 'src/tasks/wire.ts'), wire);
      fs.writeFileSync(path.join(copy, `src/features/${FEATURES[0].name}/wire.ts`), wire);
      fs.writeFileSync(path.join(copy, `src/features/${FEATURES[0].name}/deepstack-wire-routes.ts`), wire);
      const inFeature = `src/features/${FEATURES[0].name}/wire.ts`;
      expect(deepStackNamesInTasks(copy)).to.have.members([
        ...['src/tasks/wire.ts', inFeature].flatMap((file) => [`${file}:1 success`, `${file}:1 x_min`, `${file}:2 'userid'`, `${file}:3 deepStack`]),
      ]);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
