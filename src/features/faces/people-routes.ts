import { type Request, type Response, type Router } from 'express';
import { DetectdError } from '../../core/errors.js';
import { decodeRawData } from '../../core/raw-data.js';
import type { SchemaCatalogue } from '../../core/schema-catalogue.js';
import type { Gate } from '../../gate/gate.js';
import type { AnalysisCall } from '../../tasks/analysis-call.js';
import { type FaceGallery, type FacePerson, refusedByGallery } from './gallery/face-gallery.js';
import type { PhotoFaces, TakenFace } from './task/photo-faces.js';
import { type FaceWarning, heightWarning } from './gallery/face-quality.js';
import type { TaskTable } from '../../tasks/task-table.js';
import type { Task } from '../../tasks/task.js';
import type { Box } from '../../vision/image.js';
import type { UnknownPeople } from './gallery/unknown-people.js';
import { errorResponses, type PathItems } from '../../transports/http/openapi.js';
import { FACE_ERRORS, type FaceErrorCode } from './face-errors.js';
import { passRestCall } from '../../transports/http/rest-body.js';
import type { RestBody } from '../../transports/http/rest-call.js';
import { sendJson } from '../../transports/http/send-json.js';
import { uploadRequest } from '../../transports/http/upload-request.js';
import { allowOnly } from '../../transports/http/allow-only.js';

const REQUEST_SCHEMA = 'face-person-photo-request';

export interface PeopleRouteDependencies {
  readonly gate: Gate;
  readonly tasks: TaskTable;
  /** The task whose services keep people; what it finds in a photo; the people its services keep. */
  readonly task: Task;
  readonly faces: PhotoFaces;
  readonly gallery: CorrectedGallery;
  readonly schemas: SchemaCatalogue;
  readonly maxBodyBytes: number;
  /** Where the faces a correction names by `face_id` are kept. */
  readonly unknownPeople: Pick<UnknownPeople, 'keptFace' | 'forgetFace'>;
  /** The router to declare the routes on (one claiming them in the server's route ledger). */
  readonly router: Router;
}

/** What the corrections change of a service's people. */
type CorrectedGallery = Pick<FaceGallery, 'register' | 'addNegative'>;

/** A correction's face: a photo and the box of the face chosen in it, or a kept unknown face. */
type CorrectionFace = { readonly image: Buffer; readonly near?: Box } | { readonly faceId: string };

/** The face a correction applies: its embedding, and why it is weak (judged corrections only: face-quality.ts). */
type AppliedFace = Pick<TakenFace, 'embedding'> & { readonly warnings: readonly FaceWarning[] };

/** What one correction route does with the face taken from its photo, and how it is described. */
interface Correction {
  /** The path segment after `/people/{userid}/`. */
  readonly verb: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly failures: readonly FaceErrorCode[];
  /** Whether the face is judged for registration (docs/faces.md "Registration quality"): refused when it cannot be described, its warnings in the answer. */
  readonly judged: boolean;
  apply(gallery: CorrectedGallery, serviceId: string, name: string, face: AppliedFace): Promise<{ person: FacePerson; newPerson?: boolean }>;
  /** Whether a kept face it used leaves the unknown people (it is now the person's). */
  readonly takesKeptFace: boolean;
}

const IMAGE_FAILURES: readonly FaceErrorCode[] = ['invalid_json', 'invalid_request', 'invalid_base64', 'invalid_multipart', 'invalid_image', 'no_face', 'invalid_configuration', 'unauthorized', 'forbidden', 'unknown_service', 'payload_too_large', 'image_too_large', 'unsupported_media_type', 'rate_limited', 'quota_exceeded', 'model_unavailable', 'overloaded', 'deadline_exceeded'];

/** The people's corrections (docs/faces.md "Corrections"). */
const CORRECTIONS: readonly Correction[] = [
  {
    verb: 'add',
    operationId: 'add-person-face',
    summary: 'Add a photo\'s face to a person (registering them when new)',
    description:
      'The face taken from a photo (the one at `box`, else the photo\'s subject) is judged for registration (docs/faces.md "Registration quality"): 422 `unusable_face` says why when it is too small or too blurred to describe, or when the photo shows several faces, none stands out and no `box` chose one; a face taken that describes its person less surely (small, soft, turned) is added with `warnings` and counts only while the person has no good photo. A kept face (`face_id`) is judged by its height, and leaves the unknown people. `invalid_configuration` is a bad userid.',
    failures: [...IMAGE_FAILURES, 'unusable_face', 'unknown_person'],
    takesKeptFace: true,
    judged: true,
    apply: (gallery, serviceId, name, face) => gallery.register(serviceId, name, [{ descriptor: face.embedding, weak: face.warnings.length > 0 }]).catch(refusedByGallery),
  },
  {
    verb: 'not',
    operationId: 'add-person-negative',
    summary: '"Not this person": attach a photo\'s face to a registered person as a face they are not',
    description:
      'From then on a face more alike to this one than to the person\'s own nearest photo is never named as them (docs/faces.md "Corrections"). No quality check beyond the smallest face recognition describes: the face a camera named wrongly is what to send. 404 `unknown_person` when nobody is registered by the userid.',
    failures: [...IMAGE_FAILURES, 'unknown_person'],
    takesKeptFace: false,
    judged: false,
    apply: async (gallery, serviceId, name, face) => ({ person: await gallery.addNegative(serviceId, name, face.embedding).catch(refusedByGallery) }),
  },
];

/** `left,top,right,bottom` (the request schema checked its form) → a box with some area. */
function boxOf(text: string): Box {
  const [left, top, right, bottom] = text.split(',').map(Number);
  if (!(right > left && bottom > top)) throw new DetectdError('invalid_request', 'box is left,top,right,bottom with right > left and bottom > top');
  return { left, top, right, bottom };
}

/** The body → the photo and the chosen box, or the kept face: a JSON body checked against the request schema, an upload's fields as its properties. */
function faceOf(body: RestBody, schemas: SchemaCatalogue): CorrectionFace {
  if ('image' in body) {
    // Checked first: uploadRequest takes any other field for a configuration parameter, which a correction has none of.
    const unknown = body.fields.find(([name]) => name !== 'box');
    if (unknown) throw new DetectdError('invalid_request', `unknown field "${unknown[0]}": a correction's photo takes only "box"`);
    const { box } = uploadRequest(body.fields, REQUEST_SCHEMA, schemas) as { box?: string };
    return { image: body.image, ...(box !== undefined && { near: boxOf(box) }) };
  }
  const validity = schemas.check(REQUEST_SCHEMA, body.json);
  if (!validity.ok) throw new DetectdError('invalid_request', validity.problem);
  const request = body.json as { raw_data?: string; face_id?: string; box?: string };
  if (request.face_id !== undefined) return { faceId: request.face_id };
  return { image: decodeRawData(request.raw_data!), ...(request.box !== undefined && { near: boxOf(request.box) }) };
}

const peoplePath = (verb: string) => `/api/v1/:serviceType/people/:userid/${verb}`;

/**
 * Corrections of a face service's gallery over REST, with the service's key, for the task that keeps
 * one: `POST /api/v1/<task>/people/{userid}/add` adds a photo's face to the person, `…/not` attaches
 * it to them as a face they are not. Each call passes the gate as a detection does (key, limits,
 * body) and answers schemas/face-person-response.json.
 */
export function peopleRoutes(dependencies: PeopleRouteDependencies): Router {
  const { router, gate, tasks, task: galleryTask, faces, gallery, schemas, maxBodyBytes, unknownPeople } = dependencies;
  for (const correction of CORRECTIONS) {
    router.post(peoplePath(correction.verb), async (request: Request, response: Response) => {
      const task = tasks.named(String(request.params.serviceType));
      if (task !== galleryTask) throw new DetectdError('not_found', `a ${task.type} service keeps no people; see /docs`);
      const { body, call } = await passRestCall(gate, request, response, task, maxBodyBytes);
      const name = String(request.params.userid);
      const face = faceOf(body, schemas);
      await sendJson(response, await ('faceId' in face ? correctedByKeptFace(correction, gallery, unknownPeople, name, face.faceId, call.service.id) : corrected(correction, faces, gallery, name, face, call)));
    });
    allowOnly(router, peoplePath(correction.verb), ['POST'], (request) => tasks.named(String(request.params.serviceType)));
  }
  return router;
}

/** The answer of a correction (schemas/face-person-response.json): a judged one says why its face is weak (`warnings`, empty for a good face). */
function answer(serviceId: string, correction: Correction, { person, newPerson }: { person: FacePerson; newPerson?: boolean }, face: Record<string, unknown>, warnings: readonly FaceWarning[]): Record<string, unknown> {
  return {
    service_id: serviceId,
    ...(newPerson !== undefined && { new_person: newPerson }),
    person: { userid: person.name, photos: person.samples, negatives: person.negatives, added: person.created },
    face,
    ...(correction.judged && { warnings: warnings.map(({ reason, message }) => ({ reason, message })) }),
  };
}

/** The face a correction takes from a photo: judged for registration (422 `unusable_face` when it cannot be described), or any face recognition describes. */
async function photoFace(correction: Correction, faces: PhotoFaces, photo: { readonly image: Buffer; readonly near?: Box }, call: AnalysisCall): Promise<(AppliedFace & Pick<TakenFace, 'box'>) | undefined> {
  if (!correction.judged) {
    const face = await faces.takeFace(photo.image, call, photo.near);
    return face && { ...face, warnings: [] };
  }
  const face = await faces.registrationFace(photo.image, call, photo.near);
  if (face && 'problem' in face) {
    const howToChoose = face.problem.reason === 'several' ? ': choose the face with `box` (left,top,right,bottom: its bounding_box in a detection answer), or send a photo of the person alone' : '';
    throw new DetectdError('unusable_face', `the photo's face cannot be registered: ${face.problem.message}${howToChoose}`);
  }
  return face;
}

/** One correction by a photo once the gate admitted it: the face taken from it, applied, answered. */
async function corrected(correction: Correction, faces: PhotoFaces, gallery: CorrectedGallery, name: string, photo: { readonly image: Buffer; readonly near?: Box }, call: AnalysisCall): Promise<Record<string, unknown>> {
  const face = await photoFace(correction, faces, photo, call);
  if (!face) throw new DetectdError('no_face', photo.near ? 'no face found at the box given' : 'no face found in the photo');
  return answer(call.service.id, correction, await correction.apply(gallery, call.service.id, name, face), { bounding_box: face.box }, face.warnings);
}

/**
 * One correction by a kept unknown face: its descriptor as kept. Its photo is not kept, so a judged
 * correction judges it by its height alone, as naming an unknown person registers its kept faces.
 */
async function correctedByKeptFace(correction: Correction, gallery: CorrectedGallery, unknownPeople: PeopleRouteDependencies['unknownPeople'], name: string, faceId: string, serviceId: string): Promise<Record<string, unknown>> {
  const kept = await unknownPeople.keptFace(serviceId, faceId);
  if (!kept) throw new DetectdError('unknown_person', `this service kept no unknown face ${faceId}: never seen, or named, merged or forgotten since`);
  const warning = correction.judged ? heightWarning(kept.height) : undefined;
  const warnings = warning ? [warning] : [];
  const applied = await correction.apply(gallery, serviceId, name, { embedding: kept.descriptor, warnings });
  if (correction.takesKeptFace) await unknownPeople.forgetFace(serviceId, faceId);
  return answer(serviceId, correction, applied, { face_id: faceId }, warnings);
}

/** The OpenAPI path items of the correction routes, for the task that keeps a gallery. */
export function peopleOpenApiPaths(task: Task): PathItems {
  const paths: PathItems = {};
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
          ...errorResponses(correction.failures, FACE_ERRORS),
        },
      },
    };
  }
  return paths;
}
