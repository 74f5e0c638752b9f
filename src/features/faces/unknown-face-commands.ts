import type { Command } from 'commander';
import { FaceGallery, FaceGalleryError } from './gallery/face-gallery.js';
import { type UnknownFaceSettings, UnknownPeople, UnknownPeopleError } from './gallery/unknown-people.js';
import { loadConfig } from '../../config.js';
import type { Database } from '../../store/database.js';
import { printResult, runCommand, table, type Served, withDomainServing } from '../../cli/command-context.js';
import { CliFailure, EXIT } from '../../cli/exit-codes.js';
import { findService, serviceCommand, type ServiceOptions } from '../../cli/service-commands.js';
import { faceService } from './people-commands.js';

const settingsText = (settings: UnknownFaceSettings) =>
  settings.remember ? `on: faces no one is named for are kept ${settings.retentionDays} days, ${settings.maxFaces} at most` : 'off: no face is kept';
const settingsJson = (settings: UnknownFaceSettings) => ({ remember: settings.remember, retention_days: settings.retentionDays, max_faces: settings.maxFaces });

/** A whole number option within [1, max]. */
function wholeNumber(option: string, text: string, max: number): number {
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1 || Number(text) > max) throw new CliFailure('usage', `${option} must be a whole number from 1 to ${max}; got "${text}"`, EXIT.usage);
  return Number(text);
}

/** The store's or the gallery's refusal → a refused command. */
function refused(error: unknown): never {
  if (error instanceof UnknownPeopleError || error instanceof FaceGalleryError) throw new CliFailure('refused', error.message, EXIT.refused);
  throw error;
}

const people = (db: Database, secret: string) => new UnknownPeople(db, secret, new FaceGallery(db, secret));
const noSuchPerson = (service: string, id: string) => new CliFailure('not_found', `${service} has no unknown person ${id}`, EXIT.refused);

/**
 * `detectd service remember-unknown` (the switch) and `detectd service unknown list|show|name|merge|forget`:
 * the unknown people of the services of the face task's type `type` (docs/faces.md "Unknown people"), straight in the database, as the REST routes do.
 */
export function addUnknownFaceCommands(service: Command, served: Served, type: string): void {
  const withDomain = withDomainServing(served);

  serviceCommand(service, 'remember-unknown', 'keep the faces a face service names no one for, grouped into unknown people (--on), or keep none from now on (--off); with a retention and a cap')
    .option('--on', 'keep them')
    .option('--off', 'keep none from now on (those kept stay until forgotten: `detectd service unknown forget <service> --all`)')
    .option('--retention-days <n>', 'forget each kept face this many days after it was seen (default 30)')
    .option('--max-faces <n>', 'keep at most this many faces, the oldest forgotten first (default 1000)')
    .action((reference: string, options: ServiceOptions & { on?: boolean; off?: boolean; retentionDays?: string; maxFaces?: string }) =>
      runCommand(options, async () => {
        if (options.on && options.off) throw new CliFailure('usage', 'give --on or --off, not both', EXIT.usage);
        if (!options.on && !options.off && options.retentionDays === undefined && options.maxFaces === undefined) {
          throw new CliFailure('usage', 'give --on or --off, and/or --retention-days, --max-faces', EXIT.usage);
        }
        const changes = {
          remember: options.on ? true : options.off ? false : undefined,
          retentionDays: options.retentionDays === undefined ? undefined : wholeNumber('--retention-days', options.retentionDays, 3650),
          maxFaces: options.maxFaces === undefined ? undefined : wholeNumber('--max-faces', options.maxFaces, 100_000),
        };
        await withDomain(loadConfig(), options, async (domain, store) => {
          const found = faceService(type, await findService(domain, reference, options.account));
          const settings = await people(store.db, store.secret).setSettings(found.id, changes).catch(refused);
          printResult(options, { service: found.id, ...settingsJson(settings) }, `unknown faces of ${found.name}: ${settingsText(settings)}`);
        });
      }),
    );

  const unknown = service.command('unknown').description('a face service\'s unknown people: the faces it named no one for, grouped (never their descriptors)');

  serviceCommand(unknown, 'list', 'list the unknown people of a face service, most recently seen first').action((reference: string, options: ServiceOptions) =>
    runCommand(options, async () => {
      await withDomain(loadConfig(), options, async (domain, store) => {
        const found = faceService(type, await findService(domain, reference, options.account));
        const unknownPeople = people(store.db, store.secret);
        const [settings, listed] = await Promise.all([unknownPeople.settings(found.id), unknownPeople.list(found.id)]);
        printResult(
          options,
          { service: found.id, ...settingsJson(settings), unknown_people: listed.map((person) => ({ id: person.id, face_count: person.faces, first_seen: person.firstSeen, last_seen: person.lastSeen })) },
          `unknown faces of ${found.name}: ${settingsText(settings)}\n` +
            (listed.length === 0 ? 'no unknown people' : table(['ID', 'FACES', 'FIRST SEEN', 'LAST SEEN'], listed.map((person) => [person.id, String(person.faces), person.firstSeen, person.lastSeen]))),
        );
      });
    }),
  );

  serviceCommand(unknown, 'show', 'list the kept faces of an unknown person, with the frame_id and source_id each came with', '<id>').action((reference: string, id: string, options: ServiceOptions) =>
    runCommand(options, async () => {
      await withDomain(loadConfig(), options, async (domain, store) => {
        const found = faceService(type, await findService(domain, reference, options.account));
        const faces = await people(store.db, store.secret).faces(found.id, id);
        if (!faces) throw noSuchPerson(found.name, id);
        printResult(
          options,
          { service: found.id, id, faces: faces.map((face) => ({ id: face.id, seen: face.seen, frame_id: face.frameId, source_id: face.sourceId, face_height: face.height })) },
          table(['FACE', 'SEEN', 'FRAME', 'SOURCE', 'HEIGHT'], faces.map((face) => [face.id, face.seen, face.frameId ?? '', face.sourceId ?? '', `${face.height} px`])),
        );
      });
    }),
  );

  serviceCommand(unknown, 'name', 'register an unknown person\'s best faces under a userid (a new person, or one registered), then forget the unknown person', '<id> <userid>').action(
    (reference: string, id: string, userid: string, options: ServiceOptions) =>
      runCommand(options, async () => {
        await withDomain(loadConfig(), options, async (domain, store) => {
          const found = faceService(type, await findService(domain, reference, options.account));
          const named = await people(store.db, store.secret).name(found.id, id, userid).catch(refused);
          if (!named) throw noSuchPerson(found.name, id);
          printResult(
            options,
            { service: found.id, userid: named.person.name, registered_faces: named.registered, weak_faces: named.weak, samples: named.person.samples, forgotten: id },
            `${named.registered} faces registered as ${named.person.name} in ${found.name}${named.weak > 0 ? ` (${named.weak} weak: smaller than a good photo's face, counted only while ${named.person.name} has no good photo)` : ''}; unknown person ${id} forgotten`,
          );
        });
      }),
  );

  serviceCommand(unknown, 'merge', 'move every face of an unknown person into another', '<id> <into>').action((reference: string, id: string, into: string, options: ServiceOptions) =>
    runCommand(options, async () => {
      await withDomain(loadConfig(), options, async (domain, store) => {
        const found = faceService(type, await findService(domain, reference, options.account));
        const merged = await people(store.db, store.secret).merge(found.id, id, into).catch(refused);
        if (!merged) throw new CliFailure('not_found', `${found.name} has no unknown person ${id}, or none ${into}`, EXIT.refused);
        printResult(options, { service: found.id, id: merged.id, face_count: merged.faces }, `unknown person ${id} merged into ${into}: ${merged.faces} faces`);
      });
    }),
  );

  serviceCommand(unknown, 'forget', 'delete an unknown person\'s faces and thumbnails at once (or every unknown person\'s, --all)', '[id]')
    .option('--all', 'forget every unknown person of the service')
    .action((reference: string, id: string | undefined, options: ServiceOptions & { all?: boolean }) =>
      runCommand(options, async () => {
        if ((id === undefined) === (options.all === undefined)) throw new CliFailure('usage', 'give an unknown person\'s id, or --all', EXIT.usage);
        await withDomain(loadConfig(), options, async (domain, store) => {
          const found = faceService(type, await findService(domain, reference, options.account));
          const unknownPeople = people(store.db, store.secret);
          if (id === undefined) {
            const forgotten = await unknownPeople.forgetAll(found.id);
            printResult(options, { service: found.id, forgotten_people: forgotten }, `${forgotten} unknown people of ${found.name} forgotten`);
            return;
          }
          if (!(await unknownPeople.forget(found.id, id))) throw noSuchPerson(found.name, id);
          printResult(options, { service: found.id, forgotten: id }, `unknown person ${id} of ${found.name} forgotten`);
        });
      }),
    );
}
