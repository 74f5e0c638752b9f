import { type Request, type Response, Router } from 'express';
import { apiKeyFromAuthorization } from '../../accounts/api-keys.js';
import { DetectdError, type ErrorCode } from '../../core/errors.js';
import { decodeRawData } from '../../core/raw-data.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';
import type { Gate } from '../../gate/gate.js';
import type { AnalysisCall } from '../../tasks/analysis-call.js';
import type { RegisteredPerson } from '../../faces/face-recognition.js';
import { useridKey } from '../../faces/face-gallery.js';
import type { CheckedFace, PeopleGallery } from '../../tasks/people-gallery.js';
import type { TaskTable } from '../../tasks/task-table.js';
import type { Box } from '../../vision/image.js';
import { setRateLimitHeaders } from '../rate-limit-headers.js';
import { contextOf } from '../request-context.js';
import { errorResponses, type PathItems } from './openapi.js';
import { type BodyForm, bodyFormOf, restBodyOf } from './rest-body.js';
import type { RestBody } from './rest-call.js';
import { sendJson } from './send-json.js';
import { uploadRequest } from './upload-request.js';

const REQUEST_SCHEMA = 'face-person-photo-request';

export interface PeopleRouteDependencies {
  readonly gate: Gate;
  readonly tasks: TaskTable;
  readonly schemas: SchemaCatalogue;
  readonly maxBodyBytes: number;
}

/** A correction's photo: the image, and the box of the face chosen in it. */
interface CorrectionPhoto {
  readonly image: Buffer;
  readonly near?: Box;
}

/** What one correction route does with the face taken from its photo, and how it is described. */
interface Correction {
  /** The path segment after `/people/{userid}/`. */
  readonly verb: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly failures: readonly ErrorCode[];
  apply(gallery: PeopleGallery, serviceId: string, userid: string, face: CheckedFace): Promise<{ person: RegisteredPerson; newPerson?: boolean }>;
}

const IMAGE_FAILURES: readonly ErrorCode[] = ['invalid_json', 'invalid_request', 'invalid_base64', 'invalid_multipart', 'invalid_image', 'no_face', 'invalid_configuration', 'unauthorized', 'forbidden', 'unknown_service', 'payload_too_large', 'image_too_large', 'unsupported_media_type', 'rate_limited', 'quota_exceeded', 'model_unavailable', 'overloaded', 'deadline_exceeded'];

/** The people's corrections (docs/faces.md "Corrections"). */
const CORRECTIONS: readonly Correction[] = [
  {
    verb: 'faces',
    operationId: 'add-person-face',
    summary: 'Add a photo\'s face to a person (registering them when new)',
    description:
      'The face taken (the largest, or the one at `box`) must pass the registration quality check (size, blur, pose; docs/faces.md "Registration quality"), else 422 `unusable_face` says why. `invalid_configuration` is a bad userid.',
    failures: [...IMAGE_FAILURES, 'unusable_face'],
    async apply(gallery, serviceId, userid, face) {
      if (face.problem) throw new DetectdError('unusable_face', `the photo's face cannot be registered: ${face.problem.message}`);
      const newPerson = await gallery.register(serviceId, userid, [face.embedding]);
      return { person: await personNamed(gallery, serviceId, userid), newPerson };
    },
  },
  {
    verb: 'not',
    operationId: 'add-person-negative',
    summary: '"Not this person": attach a photo\'s face to a registered person as a face they are not',
    description:
      'From then on a face more alike to this one than to the person\'s own nearest photo is never named as them (docs/faces.md "Corrections"). No quality check beyond the smallest face recognition describes: the face a camera named wrongly is what to send. 404 `unknown_person` when nobody is registered by the userid.',
    failures: [...IMAGE_FAILURES, 'unknown_person'],
    apply: async (gallery, serviceId, userid, face) => ({ person: await gallery.addNegative(serviceId, userid, face.embedding) }),
  },
];

/** The person just corrected, as listed (userids are matched as the gallery matches them: the registered spelling comes back). */
async function personNamed(gallery: PeopleGallery, serviceId: string, userid: string): Promise<RegisteredPerson> {
  const person = (await gallery.list(serviceId)).find((listed) => useridKey(listed.name) === useridKey(userid));
  if (!person) throw new DetectdError('unknown_person', `nobody is registered as "${userid}" in this service`);
  return person;
}

/** `left,top,right,bottom` (the request schema checked its form) → a box with some area. */
function boxOf(text: string): Box {
  const [left, top, right, bottom] = text.split(',').map(Number);
  if (!(right > left && bottom > top)) throw new DetectdError('invalid_request', 'box is left,top,right,bottom with right > left and bottom > top');
  return { left, top, right, bottom };
}

/** The body → the photo and the chosen box: a JSON body checked against the request schema, an upload's fields as its properties. */
function photoOf(body: RestBody, schemas: SchemaCatalogue): CorrectionPhoto {
  if ('image' in body) {
    const { box } = uploadRequest(body.fields, REQUEST_SCHEMA, schemas) as { box?: string; configurations?: unknown };
    const unknown = body.fields.find(([name]) => name !== 'box');
    if (unknown) throw new DetectdError('invalid_request', `unknown field "${unknown[0]}": a correction's photo takes only "box"`);
    return { image: body.image, ...(box !== undefined && { near: boxOf(box) }) };
  }
  const validity = schemas.check(REQUEST_SCHEMA, body.json);
  if (!validity.ok) throw new DetectdError('invalid_request', validity.problem);
  const request = body.json as { raw_data: string; box?: string };
  return { image: decodeRawData(request.raw_data), ...(request.box !== undefined && { near: boxOf(request.box) }) };
}

const peoplePath = (verb: string) => `/api/v1/:serviceType/people/:userid/${verb}`;

/**
 * Corrections of a face service's gallery over REST, with the service's key, for every task that
 * keeps one (TaskAbilities.gallery): `POST /api/v1/<task>/people/{userid}/faces` adds a photo's face
 * to the person, `…/not` attaches it to them as a face they are not. Each call passes the gate as a
 * detection does (key, limits, body) and answers schemas/face-person-response.json.
 */
export function peopleRoutes(dependencies: PeopleRouteDependencies): Router {
  const router = Router();
  const { gate, tasks, schemas, maxBodyBytes } = dependencies;
  for (const correction of CORRECTIONS) {
    router.post(peoplePath(correction.verb), async (request: Request, response: Response) => {
      const task = tasks.named(String(request.params.serviceType));
      const gallery = task.abilities?.gallery;
      if (!gallery) throw new DetectdError('not_found', `a ${task.type} service keeps no people; see /docs`);
      let form: BodyForm;
      const { body, call } = await gate.pass(request, response, contextOf(response), {
        task,
        credentials: { apiKey: apiKeyFromAuthorization(request.get('authorization')) },
        counted: (caller) => {
          setRateLimitHeaders(response, caller.standings);
          form = bodyFormOf(request);
        },
        body: { whole: (received) => restBodyOf(request, form, received, maxBodyBytes) },
      });
      await sendJson(response, await corrected(correction, gallery, String(request.params.userid), photoOf(body, schemas), call));
    });
  }
  return router;
}

/** One correction once the gate admitted it: the face taken from the photo, applied, answered. */
async function corrected(correction: Correction, gallery: PeopleGallery, userid: string, photo: CorrectionPhoto, call: AnalysisCall): Promise<Record<string, unknown>> {
  const face = await gallery.takeFace(photo.image, call, photo.near);
  if (!face) throw new DetectdError('no_face', photo.near ? 'no face found at the box given' : 'no face found in the photo');
  const { person, newPerson } = await correction.apply(gallery, call.service.id, userid, face);
  return {
    service_id: call.service.id,
    ...(newPerson !== undefined && { new_person: newPerson }),
    person: { userid: person.name, photos: person.samples, negatives: person.negatives, added: person.created },
    face: { bounding_box: face.box },
  };
}

/** The OpenAPI path items of the correction routes, for each task that keeps a gallery. */
export function peopleOpenApiPaths(tasks: TaskTable): PathItems {
  const paths: PathItems = {};
  for (const task of tasks.all.filter((each) => each.abilities?.gallery)) {
    for (const correction of CORRECTIONS) {
      const body = { schema: { $ref: '#/components/schemas/FacePersonPhotoRequest' } };
      const upload = { type: 'object', properties: { image: { type: 'string', contentMediaType: 'image/*' }, box: { type: 'string' } }, required: ['image'] };
      paths[`/api/v1/${task.type}/people/{userid}/${correction.verb}`] = {
        post: {
          summary: correction.summary,
          description: correction.description,
          operationId: `${correction.operationId}-${task.type}`,
          tags: [task.type],
          security: [{ ApiKey: [] }],
          parameters: [{ name: 'userid', in: 'path', required: true, schema: { type: 'string' }, description: 'The person (1–200 characters; case does not tell people apart).' }],
          requestBody: {
            required: true,
            content: { 'application/json': body, 'multipart/form-data': { schema: upload }, 'image/*': { schema: { type: 'string', contentMediaType: 'image/*' } } },
          },
          responses: {
            '200': { description: 'The person after the correction, and the face taken.', content: { 'application/json': { schema: { $ref: '#/components/schemas/FacePersonResponse' } } } },
            ...errorResponses(correction.failures),
          },
        },
      };
    }
  }
  return paths;
}
