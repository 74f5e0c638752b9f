import type { Command } from 'commander';
import { type Served, printResult, runCommand, table, withDomainServing } from '../../cli/command-context.js';
import { CliFailure, EXIT } from '../../cli/exit-codes.js';
import { findService, serviceCommand, type ServiceOptions } from '../../cli/service-commands.js';
import { loadConfig } from '../../config.js';
import type { Service } from '../../core/service.js';
import { withArticle } from '../../indefinite-article.js';
import { type KnownPlate, KnownPlateError, KnownPlateList } from './known-plate-list.js';

/** The service, when it is of the plate task's type `type`; refused otherwise. */
function plateService(type: string, found: Service): Service {
  if (found.type !== type) throw new CliFailure('not_a_plate_service', `${found.name} is ${withArticle(found.type)} service: only a licence-plate service has known plates`, EXIT.refused);
  return found;
}
/** A refusal of the known-plate list, as the command's. */
function plateRefusal(error: unknown): never {
  if (error instanceof KnownPlateError) throw new CliFailure(error.code, error.message, EXIT.refused);
  throw error;
}

const knownPlateJson = (plate: KnownPlate) => ({ id: plate.id, plate: plate.plate, name: plate.name, created_at: plate.created });

/** `detectd service known-plates|known-plate-add|known-plate-remove|known-plate-distance`: the known plates of the services of the plate task's type `type` (docs/plates.md "Known plates"), straight in the database, as the REST routes do. */
export function addKnownPlateCommands(service: Command, served: Served, type: string): void {
  const withDomain = withDomainServing(served);
  serviceCommand(service, 'known-plates', 'list a licence-plate service\'s known plates and its match distance').action((reference: string, options: ServiceOptions) =>
    runCommand(options, async () => {
      await withDomain(loadConfig(), options, async (domain, store) => {
        const found = plateService(type, await findService(domain, reference, options.account));
        const list = new KnownPlateList(store.db);
        const [plates, distance] = await Promise.all([list.list(found.id), list.distance(found.id)]);
        printResult(
          options,
          { service: found.id, distance, known_plates: plates.map(knownPlateJson) },
          `${found.name}: reads match a known plate up to ${distance} character${distance === 1 ? '' : 's'} off\n` +
            (plates.length === 0 ? 'no known plates' : table(['PLATE', 'NAME', 'ADDED', 'ID'], plates.map((plate) => [plate.plate, plate.name, plate.created, plate.id]))),
        );
      });
    }),
  );

  serviceCommand(service, 'known-plate-add', 'add a known plate with its name to a licence-plate service: every answer that reads it says the name', '<plate> <name>')
    .action((reference: string, plate: string, name: string, options: ServiceOptions) =>
      runCommand(options, async () => {
        await withDomain(loadConfig(), options, async (domain, store) => {
          const found = plateService(type, await findService(domain, reference, options.account));
          const [added] = await new KnownPlateList(store.db).add(found.id, [{ plate, name }]).catch(plateRefusal);
          printResult(options, { service: found.id, ...knownPlateJson(added) }, `${added.plate} (${added.name}) is a known plate of ${found.name}`);
        });
      }),
    );

  serviceCommand(service, 'known-plate-remove', 'remove a known plate from a licence-plate service, by the plate or its id', '<plate>')
    .action((reference: string, plate: string, options: ServiceOptions) =>
      runCommand(options, async () => {
        await withDomain(loadConfig(), options, async (domain, store) => {
          const found = plateService(type, await findService(domain, reference, options.account));
          if (!(await new KnownPlateList(store.db).remove(found.id, plate))) throw new CliFailure('known_plate_not_found', `${found.name} lists no known plate "${plate}"`, EXIT.refused);
          printResult(options, { service: found.id, plate, removed: true }, `${plate} removed from ${found.name}'s known plates`);
        });
      }),
    );

  serviceCommand(service, 'known-plate-distance', 'set how many characters (0 to 3) a read may differ from a known plate and still match it, or `default` (1)', '<characters>')
    .action((reference: string, characters: string, options: ServiceOptions) =>
      runCommand(options, async () => {
        const distance = characters === 'default' ? null : Number(characters);
        if (distance !== null && !/^\d+$/.test(characters)) throw new CliFailure('usage', `the distance is a whole number of characters, or "default"; got "${characters}"`, EXIT.usage);
        await withDomain(loadConfig(), options, async (domain, store) => {
          const found = plateService(type, await findService(domain, reference, options.account));
          const list = new KnownPlateList(store.db);
          await list.setDistance(found.id, distance).catch(plateRefusal);
          const now = await list.distance(found.id);
          printResult(options, { service: found.id, distance: now, default: distance === null }, `${found.name}: reads match a known plate up to ${now} character${now === 1 ? '' : 's'} off${distance === null ? ' (the default)' : ''}`);
        });
      }),
    );
}
