import type { Command } from 'commander';
import { type Served, printResult, runCommand, table, withDomainServing } from '../../cli/command-context.js';
import { CliFailure, EXIT } from '../../cli/exit-codes.js';
import { callServerAs, readPhoto } from '../../cli/server-call.js';
import { findService, serviceCommand, type ServiceOptions } from '../../cli/service-commands.js';
import { loadConfig } from '../../config.js';
import type { Service } from '../../core/service.js';
import { withArticle } from '../../indefinite-article.js';
import { type DrawnRegion, drawnRegion, RegionRefused, type SentRegion } from './region-shape.js';
import { type ListedExample, type ListedRegion, StateStore } from './state-store.js';
import { regionJson, statesPaths } from './state-routes.js';

interface SourceOptions extends ServiceOptions {
  /** The camera (`source_id`); absent: `""`. */
  readonly source?: string;
}

/** The service, when it is of the states task's type `type`; refused otherwise. */
function statesService(type: string, found: Service): Service {
  if (found.type !== type) throw new CliFailure('not_a_states_service', `${found.name} is ${withArticle(found.type)} service: only a ${type} service has regions`, EXIT.refused);
  return found;
}

/** A region's shape for people: `box 10,20,90,200` or `polygon 278,230 290,186 324,185`. */
const shapeText = (region: ListedRegion) =>
  region.polygon ? `polygon ${region.polygon.map((point) => `${point.x},${point.y}`).join(' ')}` : `box ${region.box.left},${region.box.top},${region.box.right},${region.box.bottom}`;

/** A region's examples per state for people, the states in alphabetical order: `empty 2, occupied 3`. */
const examplesText = (examples: ListedRegion['examples']) =>
  Object.keys(examples).length === 0
    ? 'none'
    : Object.entries(examples)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([state, count]) => `${state} ${count}`)
        .join(', ');

/** Numbers as typed in one argument (`10,20,90,200`, `278,230 290,186`), or a usage failure. */
function numbersOf(option: string, text: string): number[] {
  const numbers = text.split(/[\s,]+/).filter(Boolean).map(Number);
  if (numbers.length === 0 || numbers.some((number) => !Number.isFinite(number))) throw new CliFailure('usage', `${option} takes numbers in frame pixels; got "${text}"`, EXIT.usage);
  return numbers;
}

/** The region `--box` or `--polygon` gives (exactly one of them), as the REST routes take it. */
function sentRegion(name: string, options: { box?: string; polygon?: string }): SentRegion {
  if ((options.box === undefined) === (options.polygon === undefined)) throw new CliFailure('usage', 'give the region as --box <left,top,right,bottom> or as --polygon "<x,y x,y x,y …>"', EXIT.usage);
  if (options.box !== undefined) {
    const numbers = numbersOf('--box', options.box);
    if (numbers.length !== 4) throw new CliFailure('usage', `--box is four numbers, left,top,right,bottom; got "${options.box}"`, EXIT.usage);
    const [left, top, right, bottom] = numbers;
    return { name, bounding_box: { left, top, right, bottom } };
  }
  const numbers = numbersOf('--polygon', options.polygon!);
  if (numbers.length % 2 !== 0) throw new CliFailure('usage', `--polygon is x,y corners, two numbers each; got "${options.polygon}"`, EXIT.usage);
  return { name, polygon: Array.from({ length: numbers.length / 2 }, (_, index) => [numbers[2 * index], numbers[2 * index + 1]] as const) };
}

/** The store's refusal (a shape or name broken, too many regions), as the command's. */
function regionRefusal(error: unknown): never {
  if (error instanceof RegionRefused) throw new CliFailure('invalid_region', error.message, EXIT.refused);
  throw error;
}

/** The region as drawn, or the command's refusal of its shape. */
function checkedRegion(region: SentRegion): DrawnRegion {
  try {
    return drawnRegion(region);
  } catch (error) {
    return regionRefusal(error);
  }
}

const sourceOption = (command: Command) => command.option('--source <source_id>', 'the camera the regions belong to (default: none, "")');
const sourceText = (source: string) => (source === '' ? 'no camera named' : `camera "${source}"`);

/**
 * `detectd service regions|region-add|region-remove|state-examples|state-teach|state-example-remove`:
 * a states service's regions per camera and their taught examples (docs/states.md "On the command line"). All
 * straight in the database as the REST routes do, but teaching, which embeds the photo's regions with
 * the service's model: that goes through the running server, as REST clients teach.
 */
export function addStateCommands(service: Command, served: Served, type: string): void {
  const withDomain = withDomainServing(served);
  const paths = statesPaths({ type });

  sourceOption(serviceCommand(service, 'regions', 'list the regions of a states service\'s camera and how many examples of each state each was taught')).action((reference: string, options: SourceOptions) =>
    runCommand(options, async () => {
      await withDomain(loadConfig(), options, async (domain, store) => {
        const found = statesService(type, await findService(domain, reference, options.account));
        const source = options.source ?? '';
        const regions = await new StateStore(store.db).regions(found.id, source);
        printResult(
          options,
          { service: found.id, source_id: source, regions: regions.map(regionJson) },
          regions.length === 0 ? `${found.name} has no regions on ${sourceText(source)}` : table(['REGION', 'EXAMPLES', 'SHAPE'], regions.map((region) => [region.name, examplesText(region.examples), shapeText(region)])),
        );
      });
    }),
  );

  sourceOption(serviceCommand(service, 'region-add', 'draw a region on a states service\'s camera, a box or a polygon in frame pixels; a name drawn again is redrawn and forgets its examples', '<name>'))
    .option('--box <left,top,right,bottom>', 'the region as a box')
    .option('--polygon <"x,y x,y x,y …">', 'the region as a polygon, its corners in order')
    .action((reference: string, name: string, options: SourceOptions & { box?: string; polygon?: string }) =>
      runCommand(options, async () => {
        const drawn = checkedRegion(sentRegion(name, options));
        await withDomain(loadConfig(), options, async (domain, store) => {
          const found = statesService(type, await findService(domain, reference, options.account));
          const source = options.source ?? '';
          const states = new StateStore(store.db);
          await states.draw(found.id, source, [drawn]).catch(regionRefusal);
          const listed = (await states.regions(found.id, source)).find((each) => each.name === drawn.name)!;
          printResult(options, { service: found.id, source_id: source, ...regionJson(listed) }, `${listed.name} drawn on ${sourceText(source)} of ${found.name}: ${shapeText(listed)}`);
        });
      }),
    );

  sourceOption(serviceCommand(service, 'region-remove', 'remove a region and its examples from a states service\'s camera', '<name>')).action((reference: string, name: string, options: SourceOptions) =>
    runCommand(options, async () => {
      await withDomain(loadConfig(), options, async (domain, store) => {
        const found = statesService(type, await findService(domain, reference, options.account));
        const source = options.source ?? '';
        if (!(await new StateStore(store.db).remove(found.id, source, name))) throw new CliFailure('region_not_found', `${found.name} has no region "${name}" on ${sourceText(source)}`, EXIT.refused);
        printResult(options, { service: found.id, source_id: source, region: name, removed: true }, `${name} removed from ${sourceText(source)} of ${found.name}`);
      });
    }),
  );

  sourceOption(serviceCommand(service, 'state-examples', 'list the examples a states service\'s camera was taught (of one region with --region), oldest first'))
    .option('--region <name>', 'only this region\'s')
    .action((reference: string, options: SourceOptions & { region?: string }) =>
      runCommand(options, async () => {
        await withDomain(loadConfig(), options, async (domain, store) => {
          const found = statesService(type, await findService(domain, reference, options.account));
          const source = options.source ?? '';
          const examples = await new StateStore(store.db).examples(found.id, source, options.region);
          // The thumbnails are for the console and the REST routes; a terminal lists the rest.
          const listed = examples.map(({ thumbnail: _thumbnail, ...example }: ListedExample) => example);
          printResult(
            options,
            { service: found.id, source_id: source, examples: listed },
            listed.length === 0 ? `${found.name} was taught no examples on ${sourceText(source)}${options.region === undefined ? '' : ` for ${options.region}`}` : table(['REGION', 'STATE', 'EMBEDDER', 'ADDED', 'ID'], listed.map((example) => [example.region, example.state, example.embedder ?? 'none recorded', example.created, example.id])),
          );
        });
      }),
    );

  sourceOption(serviceCommand(service, 'state-teach', 'teach a states service the state a region is in on a photo of its camera, through the running server (which embeds the region with the service\'s model)', '<photo> <region> <state>'))
    .option('--url <url>', 'the server to teach through (default: the one these settings start on this machine)')
    .action((reference: string, photo: string, region: string, state: string, options: SourceOptions & { url?: string }) =>
      runCommand(options, async () => {
        const config = loadConfig();
        const bytes = await readPhoto(photo);
        await withDomain(config, options, async (domain) => {
          const found = statesService(type, await findService(domain, reference, options.account));
          const source = options.source ?? '';
          const response = await callServerAs(domain, found, config, options.url, paths.examples, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ raw_data: bytes.toString('base64'), source_id: source, states: { [region]: state } }),
          });
          const answer = (await response.json().catch(() => ({}))) as { examples?: ListedExample[]; error?: { code: string; message: string } };
          if (!response.ok || !answer.examples) throw new CliFailure(answer.error?.code ?? 'refused', `the server refused the example (${response.status}): ${answer.error?.message ?? 'no answer'}`, EXIT.refused);
          const [taught] = answer.examples;
          printResult(options, { service: found.id, source_id: source, id: taught.id, region: taught.region, state: taught.state, created: taught.created }, `${taught.region} on ${sourceText(source)} of ${found.name} taught as ${taught.state} (example ${taught.id})`);
        });
      }),
    );

  serviceCommand(service, 'state-example-remove', 'remove one taught example from a states service, by its id (`detectd service state-examples`)', '<id>').action((reference: string, id: string, options: ServiceOptions) =>
    runCommand(options, async () => {
      await withDomain(loadConfig(), options, async (domain, store) => {
        const found = statesService(type, await findService(domain, reference, options.account));
        if (!(await new StateStore(store.db).forget(found.id, id))) throw new CliFailure('example_not_found', `${found.name} has no example ${id}`, EXIT.refused);
        printResult(options, { service: found.id, id, removed: true }, `example ${id} removed from ${found.name}`);
      });
    }),
  );
}
