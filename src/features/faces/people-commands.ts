import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { printResult, runCommand, type Served, type ServiceFacts, type Store, table, withDomainServing } from '../../cli/command-context.js';
import { CliFailure, EXIT } from '../../cli/exit-codes.js';
import { findService, serviceCommand, type ServiceOptions } from '../../cli/service-commands.js';
import { localServerUrl } from '../../cli/served-models.js';
import { loadConfig } from '../../config.js';
import type { Service } from '../../core/service.js';
import { FaceGallery, type FacePerson } from './gallery/face-gallery.js';
import { withArticle } from '../../indefinite-article.js';

/** The service, when it is of the face task's type `type`; refused otherwise. */
export function faceService(type: string, found: Service): Service {
  if (found.type !== type) throw new CliFailure('not_a_face_service', `${found.name} is ${withArticle(found.type)} service: only a face service has people`, EXIT.refused);
  return found;
}

/** What `detectd service show` says of a service of the face task's type `type`: the match threshold in force, as the gallery reads it (its own, or the server default). */
export async function faceFacts(type: string, found: Service, store: Store): Promise<ServiceFacts | undefined> {
  if (found.type !== type) return undefined;
  const gallery = new FaceGallery(store.db, store.secret);
  const [threshold, own] = await Promise.all([gallery.threshold(found.id), gallery.ownThreshold(found.id)]);
  return {
    json: { face_match_threshold: threshold, face_match_threshold_default: own === null },
    lines: [`faces     named at similarity ≥ ${threshold}${own === null ? ' (the default)' : ''}`],
  };
}

/**
 * `detectd service people|register|face-threshold|forget`: the gallery of people of the services of
 * the face task's type `type` (docs/faces.md), straight in the database (registration through the
 * running server, as DeepStack clients register).
 */
export function addPeopleCommands(service: Command, served: Served, type: string): void {
  const withDomain = withDomainServing(served);

  serviceCommand(service, 'people', 'list the people registered in a face service\'s gallery (never their face descriptors)').action((reference: string, options: ServiceOptions) =>
    runCommand(options, async () => {
      await withDomain(loadConfig(), options, async (domain, store) => {
        const found = faceService(type, await findService(domain, reference, options.account));
        const people = await new FaceGallery(store.db, store.secret).list(found.id);
        // Photos an earlier version described are never matched: say so beside each person who has some.
        const photos = (person: FacePerson) => `${person.samples}${person.outdatedSamples > 0 ? ` (+${person.outdatedSamples} from an earlier version: register again)` : ''}`;
        printResult(
          options,
          { service: found.id, people: people.map((person) => ({ userid: person.name, photos: person.samples, outdated_photos: person.outdatedSamples, created_at: person.created })) },
          people.length === 0 ? `nobody is registered in ${found.name}` : table(['USERID', 'PHOTOS', 'ADDED'], people.map((person) => [person.name, photos(person), person.created])),
        );
      });
    }),
  );

  serviceCommand(service, 'register', 'register a person in a face service from photos (the subject of each: a photo of several faces none of which stands out is refused), through the running server, as DeepStack clients do', '<userid> <photos...>')
    .option('--url <url>', 'the server to register with (default: the one these settings start on this machine)')
    .action((reference: string, userid: string, photos: string[], options: ServiceOptions & { url?: string }) =>
      runCommand(options, async () => {
        const config = loadConfig();
        const form = new FormData();
        form.append('userid', userid);
        for (const [index, photo] of photos.entries()) {
          const bytes = await readFile(photo).catch((error: NodeJS.ErrnoException) => {
            throw new CliFailure('unreadable_photo', `cannot read ${photo}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`, EXIT.usage);
          });
          form.append(index === 0 ? 'image' : `image${index}`, new Blob([new Uint8Array(bytes)]), path.basename(photo));
        }
        await withDomain(config, options, async (domain) => {
          const found = faceService(type, await findService(domain, reference, options.account));
          const apiKey = await domain.keys.reveal(found);
          if (!apiKey) throw new CliFailure('no_key', `${found.name} has no API key to call the server with: detectd service rotate-key ${found.id}`, EXIT.refused);
          const url = (options.url ?? localServerUrl(config)).replace(/\/+$/, '');
          const response = await fetch(`${url}/v1/vision/face/register`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}` }, body: form }).catch((error: Error) => {
            throw new CliFailure('no_server', `no detectd server answers at ${url} (${error.cause instanceof Error ? error.cause.message : error.message}): start it (npm start) or give --url`, EXIT.environment);
          });
          const answer = (await response.json().catch(() => ({}))) as { success?: boolean; error?: string; code?: string; message?: string; faces_taken?: { image: string }[]; faces_weak?: { image: string; warning: string }[]; faces_refused?: { image: string; error: string }[] };
          if (answer.success !== true) throw new CliFailure(answer.code ?? 'refused', `the server refused the registration (${response.status}): ${answer.error ?? 'no answer'}`, EXIT.refused);
          const taken = new Set((answer.faces_taken ?? []).map((face) => face.image));
          const fields = photos.map((_, index) => (index === 0 ? 'image' : `image${index}`));
          const refused = new Map((answer.faces_refused ?? []).map((face) => [face.image, face.error]));
          const left = photos.filter((_, index) => !taken.has(fields[index]) && !refused.has(fields[index]));
          const poor = photos.flatMap((photo, index) => (refused.has(fields[index]) ? [`${photo}: ${refused.get(fields[index])}`] : []));
          const weak = (answer.faces_weak ?? []).map((face) => `${photos[fields.indexOf(face.image)] ?? face.image}: ${face.warning}`);
          printResult(
            options,
            { service: found.id, userid, message: answer.message, photos: photos.length, faces_taken: answer.faces_taken ?? [], faces_weak: answer.faces_weak ?? [], faces_refused: answer.faces_refused ?? [] },
            `${userid} ${answer.message === 'face added' ? 'registered in' : 'given more photos in'} ${found.name}: a face taken from ${taken.size} of ${photos.length} photos${left.length > 0 ? ` (no face in ${left.join(', ')})` : ''}${weak.length > 0 ? ` (weak, counted only while ${userid} has no good photo: ${weak.join('; ')})` : ''}${poor.length > 0 ? ` (refused: ${poor.join('; ')})` : ''}`,
          );
        });
      }),
    );

  serviceCommand(service, 'face-threshold', 'set the similarity (0 to 1; above 0.65 the same person, below 0.55 two people; default 0.6) a face must reach to be named as a registered person, or `default`', '<similarity>')
    .action((reference: string, similarity: string, options: ServiceOptions) =>
      runCommand(options, async () => {
        const threshold = similarity === 'default' ? null : Number(similarity);
        if (threshold !== null && !(/^\d*\.?\d+$/.test(similarity) && threshold <= 1)) {
          throw new CliFailure('usage', `the threshold is a similarity from 0 to 1 (above 0.65 the same person, below 0.55 two people), or "default"; got "${similarity}"`, EXIT.usage);
        }
        await withDomain(loadConfig(), options, async (domain, store) => {
          const found = faceService(type, await findService(domain, reference, options.account));
          const gallery = new FaceGallery(store.db, store.secret);
          await gallery.setThreshold(found.id, threshold);
          const now = await gallery.threshold(found.id);
          printResult(options, { service: found.id, face_match_threshold: now, default: threshold === null }, `${found.name}: faces named at similarity ≥ ${now}${threshold === null ? ' (the default)' : ''}`);
        });
      }),
    );

  serviceCommand(service, 'forget', 'remove a person and every face descriptor of theirs from a face service\'s gallery', '<userid>')
    .action((reference: string, userid: string, options: ServiceOptions) =>
      runCommand(options, async () => {
        await withDomain(loadConfig(), options, async (domain, store) => {
          const found = faceService(type, await findService(domain, reference, options.account));
          if (!(await new FaceGallery(store.db, store.secret).delete(found.id, userid))) {
            throw new CliFailure('not_found', `${found.name} has nobody registered as "${userid}"`, EXIT.refused);
          }
          printResult(options, { service: found.id, userid, removed: true }, `${userid} removed from ${found.name}`);
        });
      }),
    );
}
