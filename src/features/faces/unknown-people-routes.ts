import { type Request, type Response, type Router } from 'express';
import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import { DetectdError } from '../../core/errors.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';
import { FaceGalleryError } from './gallery/face-gallery.js';
import { type UnknownFaceSettings, type UnknownPeople, UnknownPeopleError, type UnknownPerson } from './gallery/unknown-people.js';
import type { Gate } from '../../gate/gate.js';
import type { Task } from '../../tasks/task.js';
import { contextOf } from '../../transports/request-context.js';
import { sendJson } from '../../transports/http/send-json.js';
import { checkedJson, JSON_CONTENT_TYPE } from '../../transports/http/rest-body.js';
import { errorResponses, type PathItems } from '../../transports/http/openapi.js';
import { FACE_ERRORS } from './face-errors.js';
import { allowOnly } from '../../transports/http/allow-only.js';

export interface UnknownPeopleRouteDependencies {
  readonly gate: Gate;
  /** The task whose services keep people: theirs are the unknown people. */
  readonly task: Task;
  readonly schemas: SchemaCatalogue;
  readonly people: UnknownPeople;
  /** The router to declare the routes on (one claiming them in the server's route ledger). */
  readonly router: Router;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where a task that keeps a gallery of people serves its unknown people. */
const unknownPeoplePath = (task: Task) => `/api/v1/${task.type}/unknown-people`;

const personJson = (person: UnknownPerson) => ({ id: person.id, face_count: person.faces, first_seen: person.firstSeen, last_seen: person.lastSeen, best_faces: person.bestFaces });
const settingsJson = (settings: UnknownFaceSettings) => ({ remember: settings.remember, retention_days: settings.retentionDays, max_faces: settings.maxFaces });

/** An id of the path: a UUID (400 otherwise), then looked up in the key's service (404 `unknown_person` there). */
function idOf(request: Request, name: string): string {
  const id = String(request.params[name]);
  if (!UUID.test(id)) throw new DetectdError('invalid_request', `${name === 'faceId' ? 'a kept face' : 'an unknown person'}'s id is a UUID, as listed by GET …/unknown-people`);
  return id;
}

const noSuchPerson = (id: string) => new DetectdError('unknown_person', `this service has no unknown person ${id}: never seen, or named, merged or forgotten since`);

/** A gallery's or the store's refusal of what was sent → the caller's 400. */
function refusedAsRequest(error: unknown): never {
  if (error instanceof FaceGalleryError || error instanceof UnknownPeopleError) throw new DetectdError('invalid_request', error.message);
  throw error;
}

/**
 * The unknown people of a face service, with its key: list them and their faces, a face's
 * thumbnail, name, merge, forget, and the switch. Each is a management call (Gate.manage): it runs
 * no model, so it answers while the face model is unloaded or busy, and counts against no rate
 * limit or quota. docs/faces.md ("Unknown people", "Memory") describes them.
 */
export function unknownPeopleRoutes(dependencies: UnknownPeopleRouteDependencies): Router {
  const { router, gate, task, schemas, people } = dependencies;

  /** One management call through the gate (Gate.manage): the caller's service id, and the bounded JSON body checked against `schema` when one is expected. */
  const pass = async (request: Request, response: Response, schema?: string): Promise<{ serviceId: string; body: unknown }> => {
    const service = await gate.manage({ apiKey: apiKeyFromAuthorization(request.get('authorization')) }, task, contextOf(response));
    if (schema && !JSON_CONTENT_TYPE.test(request.get('content-type') ?? '')) throw new DetectdError('unsupported_media_type', 'send the body as Content-Type: application/json');
    const received = await gate.receive(request, response);
    return { serviceId: service.id, body: schema === undefined ? undefined : checkedJson(received, schemas, schema) };
  };

  const base = unknownPeoplePath(task);
  router.get(`${base}/settings`, async (request, response) => {
    const { serviceId } = await pass(request, response);
    await sendJson(response, settingsJson(await people.settings(serviceId)));
  });
  router.put(`${base}/settings`, async (request, response) => {
    const { serviceId, body } = await pass(request, response, 'unknown-faces-settings');
    const sent = body as { remember?: boolean; retention_days?: number; max_faces?: number };
    const settings = await people.setSettings(serviceId, { remember: sent.remember, retentionDays: sent.retention_days, maxFaces: sent.max_faces }).catch(refusedAsRequest);
    await sendJson(response, settingsJson(settings));
  });
  // Before `/:id`, which would take "settings" for an id.
  allowOnly(router, `${base}/settings`, ['GET', 'PUT']);
  router.get(base, async (request, response) => {
    const { serviceId } = await pass(request, response);
    await sendJson(response, { service_id: serviceId, unknown_people: (await people.list(serviceId)).map(personJson) });
  });
  router.get(`${base}/:id`, async (request, response) => {
    const id = idOf(request, 'id');
    const { serviceId } = await pass(request, response);
    const faces = await people.faces(serviceId, id);
    const person = (await people.list(serviceId)).find((listed) => listed.id === id);
    if (!faces || !person) throw noSuchPerson(id);
    await sendJson(response, {
      ...personJson(person),
      faces: faces.map((face) => ({ id: face.id, seen: face.seen, frame_id: face.frameId, source_id: face.sourceId, face_height: face.height, confidence: face.confidence })),
    });
  });
  router.get(`${base}/:id/faces/:faceId/thumbnail`, async (request, response) => {
    const [id, faceId] = [idOf(request, 'id'), idOf(request, 'faceId')];
    const { serviceId } = await pass(request, response);
    const thumbnail = await people.thumbnail(serviceId, id, faceId);
    if (!thumbnail) throw new DetectdError('unknown_person', `this service's unknown person ${id} has no kept face ${faceId}`);
    // A face is biometric data: no cache along the way keeps it once it is forgotten.
    response.set({ 'Content-Type': 'image/jpeg', 'Cache-Control': 'no-store' }).send(thumbnail);
  });
  router.post(`${base}/:id/name`, async (request, response) => {
    const id = idOf(request, 'id');
    const { serviceId, body } = await pass(request, response, 'unknown-person-name-request');
    const sent = body as { userid: string; faces?: number };
    const named = await people.name(serviceId, id, sent.userid, sent.faces).catch(refusedAsRequest);
    if (!named) throw noSuchPerson(id);
    await sendJson(response, { userid: named.person.name, registered_faces: named.registered, weak_faces: named.weak, samples: named.person.samples, forgotten: id });
  });
  router.post(`${base}/:id/merge`, async (request, response) => {
    const id = idOf(request, 'id');
    const { serviceId, body } = await pass(request, response, 'unknown-person-merge-request');
    const into = (body as { into: string }).into;
    if (!UUID.test(into)) throw new DetectdError('invalid_request', '"into" is the id (a UUID) of another unknown person of this service');
    const merged = await people.merge(serviceId, id, into).catch(refusedAsRequest);
    if (!merged) throw noSuchPerson((await people.faces(serviceId, id)) ? into : id);
    await sendJson(response, personJson(merged));
  });
  router.delete(`${base}/:id`, async (request, response) => {
    const id = idOf(request, 'id');
    const { serviceId } = await pass(request, response);
    if (!(await people.forget(serviceId, id))) throw noSuchPerson(id);
    await sendJson(response, { forgotten: id });
  });
  allowOnly(router, base, ['GET']);
  allowOnly(router, `${base}/:id`, ['GET', 'DELETE']);
  allowOnly(router, `${base}/:id/faces/:faceId/thumbnail`, ['GET']);
  allowOnly(router, `${base}/:id/name`, ['POST']);
  allowOnly(router, `${base}/:id/merge`, ['POST']);
  return router;
}

const ERRORS = errorResponses(['invalid_request', 'invalid_json', 'unsupported_media_type', 'payload_too_large', 'unauthorized', 'forbidden', 'unknown_person'], FACE_ERRORS);
const json = (title: string) => ({ content: { 'application/json': { schema: { $ref: `#/components/schemas/${title}` } } } });
const idParameter = (name: string, what: string) => ({ name, in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description: what });

/** The unknown-people routes' part of the API reference, for the task that keeps a gallery of people. */
export function unknownPeopleOpenApiPaths(task: Task): PathItems {
  // In the task's own group of the reference, beside its REST route.
  const operationFor = (tag: string) => (summary: string, operationId: string, answer: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
    summary,
    operationId,
    tags: [tag],
    security: [{ ApiKey: [] }],
    responses: { '200': { description: 'OK', ...answer }, ...ERRORS },
    ...more,
  });
  const person = [idParameter('id', 'The unknown person\'s id.')];
  const body = (title: string) => ({ requestBody: { required: true, ...json(title) } });
  const operation = operationFor(task.type);
  const base = unknownPeoplePath(task);
  const id = (verb: string) => `${task.type}-unknown-people-${verb}`;
  return Object.fromEntries([
    [`${base}/settings`, {
      get: operation('Whether the service keeps unknown faces, for how long, how many', id('settings'), json('UnknownFacesSettings')),
      put: operation('Turn keeping unknown faces on or off, set the retention and the cap (a smaller one forgets at once)', id('set-settings'), json('UnknownFacesSettings'), body('UnknownFacesSettings')),
    }],
    [base, { get: operation('The service\'s unknown people: groups of the faces no one was named for', id('list'), json('UnknownPeopleResponse')) }],
    [`${base}/{id}`, {
      get: operation('An unknown person\'s kept faces, with the frame_id and source_id each came with', id('show'), json('UnknownPersonResponse'), { parameters: person }),
      delete: operation('Forget an unknown person: its faces and thumbnails are deleted at once', id('forget'), json('UnknownPersonForgottenResponse'), { parameters: person }),
    }],
    [`${base}/{id}/faces/{faceId}/thumbnail`, {
      get: operation('A kept face\'s thumbnail', id('thumbnail'), { content: { 'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } } } }, { parameters: [...person, idParameter('faceId', 'The kept face\'s id.')] }),
    }],
    [`${base}/{id}/name`, {
      post: operation('Name an unknown person: its best faces are registered under the userid, then it is forgotten', id('name'), json('UnknownPersonNamedResponse'), { parameters: person, ...body('UnknownPersonNameRequest') }),
    }],
    [`${base}/{id}/merge`, {
      post: operation('Merge an unknown person into another', id('merge'), json('UnknownPeopleResponse/$defs/unknown_person'), { parameters: person, ...body('UnknownPersonMergeRequest') }),
    }],
  ]);
}
