import { DetectdError } from '../../core/errors.js';
import { type FaceGallery, refusedByGallery } from './gallery/face-gallery.js';
import { UNKNOWN_PERSON } from './gallery/unknown-person.js';
import type { PhotoFaces, RegistrationFace } from './task/photo-faces.js';
import { DEEPSTACK_MIN_CONFIDENCE } from '../../transports/deepstack/deepstack-wire.js';
import { type DeepStackAnswer, deepStackBox, deepStackField, deepStackImage, type DeepStackRequest, type DeepStackTaskRoute } from '../../transports/deepstack/deepstack-form.js';

/** Photos one registration may carry (`image`, `image1`, `image2`, …). */
const MAX_REGISTRATION_PHOTOS = 10;
const KEY_FIELD = { api_key: 'The API key (or send `Authorization`; none from an address the service accepts keyless calls from).' };
const IMAGE_FIELDS = {
  image: 'The image file (JPEG, PNG, WebP, …).',
  min_confidence: 'Faces detected with a lower confidence are left out: a number from 0 to 1; default 0.4 (DeepStack\'s).',
  ...KEY_FIELD,
};
const KEYED_FAILURES = {
  '401': 'Missing or wrong key.',
  '403': 'The key belongs to a service of another type (the message names the type needed).',
  '429': 'The service\'s rate limit or quota is spent.',
  '503': 'Overloaded, past the deadline, or no face model loaded.',
};
const IMAGE_FAILURES = { '400': 'No image, a bad image or form, a bad `min_confidence`.', ...KEYED_FAILURES };
/** A management call's (list, delete): no model, no rate limit or quota (docs/faces.md "Memory"). */
const MANAGEMENT_FAILURES = { '401': KEYED_FAILURES['401'], '403': KEYED_FAILURES['403'], '413': 'The form is larger than the body limit.' };
const BOX = '"confidence", "x_min", "y_min", "x_max", "y_max"';
const CODEPROJECT_FIELDS = '"message", "command", "moduleId", "requestId", "inferenceMs", "processMs", …';

/** How to register one of several faces of a photo: DeepStack's register takes no box, the REST correction route does. */
const SEVERAL_FACES_CHOICE = ': send a photo of the person alone (or cropped to their face), or add the face by its box on POST /api/v1/{service type}/people/{userid}/add';

const facesFound = (count: number) => (count === 1 ? 'Found 1 face' : `Found ${count} faces`);

/** The person a registration, a deletion names: DeepStack's `userid` field, required. */
function nameOf(request: DeepStackRequest): string {
  const userid = deepStackField(request, 'userid');
  if (userid === undefined) throw new DetectdError('missing_field', 'userid not specified');
  return userid;
}

/**
 * DeepStack's and CodeProject.AI Server's face API, answered as deepstack-python's DeepstackFace,
 * Home Assistant's deepstack_face, Double Take and Blue Iris parse it: detection, registration of
 * a person from one or more photos, recognition (`userid`, `unknown` below the service's
 * threshold), the list of people, deletion and the comparison of two photos. `faces`: what the
 * face task finds in a photo; `gallery`: the service's people, kept and forgotten.
 */
export function deepStackFaceRoutes(faces: PhotoFaces, gallery: Pick<FaceGallery, 'register' | 'list' | 'delete'>): DeepStackTaskRoute[] {
  return [
    {
      path: '/v1/vision/face',
      command: 'detect',
      operationId: 'deepstack-face-detect',
      summary: 'DeepStack / CodeProject.AI face detection (the service\'s face model)',
      formFields: IMAGE_FIELDS,
      answer: `\`{"success": true, "predictions": [{${BOX}}], "count", ${CODEPROJECT_FIELDS}}\`, highest confidence first`,
      failures: IMAGE_FAILURES,
      async respond(request, call): Promise<DeepStackAnswer> {
        const found = await faces.find(deepStackImage(request), request.minConfidence ?? DEEPSTACK_MIN_CONFIDENCE, false, call);
        return { predictions: found.map((face) => ({ confidence: face.confidence, ...deepStackBox(face.bounding_box) })), message: facesFound(found.length) };
      },
    },
    {
      path: '/v1/vision/face/recognize',
      command: 'recognize',
      operationId: 'deepstack-face-recognize',
      summary: 'DeepStack / CodeProject.AI face recognition: who each face is among the service\'s registered people',
      formFields: {
        ...IMAGE_FIELDS,
        min_confidence: 'Faces detected with a lower confidence are left out, and, as DeepStack reads it, a face matched with a lower similarity is `unknown`: a number from 0 to 1; absent, faces are found at 0.4 (DeepStack\'s) and named by the service\'s threshold alone.',
      },
      answer: `\`{"success": true, "predictions": [{"userid", ${BOX}}], "count", ${CODEPROJECT_FIELDS}}\`: \`userid\` the registered person (\`confidence\` their similarity, 0–1: above 0.65 the same person, below 0.55 another) or \`unknown\` (\`confidence\` 0) below the service's face match threshold or below \`min_confidence\` when sent`,
      failures: IMAGE_FAILURES,
      async respond(request, call): Promise<DeepStackAnswer> {
        const found = await faces.find(deepStackImage(request), request.minConfidence ?? DEEPSTACK_MIN_CONFIDENCE, true, call);
        // DeepStack's min_confidence on recognize, when sent: a face matched less surely than it is nobody (it is the detection threshold too, as on every face route).
        const floor = request.minConfidence ?? 0;
        const predictions = found.map((face) =>
          face.similarity !== undefined && face.similarity >= floor
            ? { userid: face.name, confidence: face.similarity, ...deepStackBox(face.bounding_box) }
            : { userid: UNKNOWN_PERSON, confidence: 0, ...deepStackBox(face.bounding_box) },
        );
        const message = found.length === 0 ? 'No face found in image' : predictions.some((face) => face.userid !== UNKNOWN_PERSON) ? 'A face was recognised' : 'No known faces';
        return { predictions, message };
      },
    },
    {
      path: '/v1/vision/face/register',
      command: 'register',
      operationId: 'deepstack-face-register',
      summary: 'DeepStack / CodeProject.AI face registration: a person (userid) from one or more photos, the subject of each',
      formFields: {
        userid: 'The person\'s name or id (1–200 characters); registering a userid again adds the photos to them.',
        image: `A photo of the person; more in \`image1\`, \`image2\`, … (any field names, at most ${MAX_REGISTRATION_PHOTOS} photos).`,
        ...KEY_FIELD,
      },
      answer: `\`{"success": true, "message": "face added" | "face updated", "faces_taken": [{"image", "x_min", "y_min", "x_max", "y_max"}], "faces_weak": [{"image", "reason", "warning"}], "faces_refused": [{"image", "reason", "error"}], ${CODEPROJECT_FIELDS.replace('"message", ', '')}}\`: the face taken from each photo (by its field), photos without a face left out; a face taken that describes its person less surely is listed in \`faces_weak\` (\`reason\` \`small\`, \`soft\`, \`turned\`; it counts only while the person has no good photo); a face too small or too blurred to describe (\`reason\` \`small\`, \`blurred\`), or a photo of several faces none of which stands out as its subject (\`several\`), is not registered and listed in \`faces_refused\` (docs/faces.md "Registration quality")`,
      failures: { '400': 'No `userid`, no photo, a bad image, or no face in any photo (`no_face`).', '422': 'Every photo\'s face is too small or too blurred to describe, or one of several with none standing out (`unusable_face`: the error says which photo and why).', ...KEYED_FAILURES },
      files: MAX_REGISTRATION_PHOTOS,
      async respond(request, call): Promise<DeepStackAnswer> {
        const name = nameOf(request);
        if (request.images.length === 0) throw new DetectdError('invalid_multipart', 'No valid image file found');
        const taken: { field: string; face: Exclude<RegistrationFace, { problem: unknown }> }[] = [];
        const refused: { image: string; reason: string; error: string }[] = [];
        for (const image of request.images) {
          const face = await faces.registrationFace(image.bytes, call);
          if (face && 'problem' in face) refused.push({ image: image.field, reason: face.problem.reason, error: `${face.problem.message}${face.problem.reason === 'several' ? SEVERAL_FACES_CHOICE : ''}` });
          else if (face) taken.push({ field: image.field, face });
        }
        // A photo that cannot be described among good ones is left out, not the whole registration: the answer lists it.
        if (taken.length === 0 && refused.length > 0) throw new DetectdError('unusable_face', refused.map(({ image, error }) => `${image}: ${error}`).join('; '));
        if (taken.length === 0) throw new DetectdError('no_face', 'No face detected');
        const added = await gallery.register(call.service.id, name, taken.map(({ face }) => ({ descriptor: face.embedding, weak: face.warnings.length > 0 }))).catch(refusedByGallery);
        // detectd's additions (DeepStack's clients read `message`): which face was taken from which photo, for the console's People page, which were weak and why, and which photos were refused and why.
        const facesTaken = taken.map(({ field, face }) => ({ image: field, ...deepStackBox(face.box) }));
        const weak = taken.flatMap(({ field, face }) => face.warnings.map(({ reason, message }) => ({ image: field, reason, warning: message })));
        return { message: added.newPerson ? 'face added' : 'face updated', fields: { faces_taken: facesTaken, faces_weak: weak, faces_refused: refused } };
      },
    },
    {
      path: '/v1/vision/face/list',
      command: 'list',
      operationId: 'deepstack-face-list',
      summary: 'DeepStack / CodeProject.AI list of the service\'s registered people',
      formFields: KEY_FIELD,
      answer: `\`{"success": true, "faces": ["<userid>", …], "people": [{"userid", "photos", "negatives", "added"}], ${CODEPROJECT_FIELDS}}\``,
      failures: MANAGEMENT_FAILURES,
      async manage(_request, service): Promise<DeepStackAnswer> {
        const people = await gallery.list(service.id);
        const userids = people.map((person) => person.name);
        // `people` is detectd's addition (clients read `faces`): each person's photos, "not this person" faces and when they were added, for the console's People page.
        const listed = people.map((person) => ({ userid: person.name, photos: person.samples, negatives: person.negatives, added: person.created }));
        return { fields: { faces: userids, people: listed }, message: userids.length === 1 ? '1 registered face' : `${userids.length} registered faces` };
      },
    },
    {
      path: '/v1/vision/face/delete',
      command: 'delete',
      operationId: 'deepstack-face-delete',
      summary: 'DeepStack / CodeProject.AI deletion of a registered person and every photo\'s descriptor',
      formFields: { userid: 'The person to delete.', ...KEY_FIELD },
      answer: `\`{"success": true, ${CODEPROJECT_FIELDS}}\` (also for a userid that is not registered, as DeepStack answers)`,
      failures: { '400': 'No `userid`.', ...MANAGEMENT_FAILURES },
      async manage(request, service): Promise<DeepStackAnswer> {
        const removed = await gallery.delete(service.id, nameOf(request));
        return { message: removed ? 'face deleted' : 'no such userid' };
      },
    },
    {
      path: '/v1/vision/face/match',
      command: 'match',
      operationId: 'deepstack-face-match',
      summary: 'DeepStack / CodeProject.AI comparison of the largest faces of two photos',
      formFields: { image1: 'The first photo.', image2: 'The second photo.', ...KEY_FIELD },
      answer: `\`{"success": true, "similarity", ${CODEPROJECT_FIELDS}}\`: similarity 0–1, on the scale of the service's face match threshold: above 0.65 the same person, below 0.55 two people`,
      failures: { '400': 'A photo missing or bad, or no face in one of them (`no_face`).', ...KEYED_FAILURES },
      files: 2,
      async respond(request, call): Promise<DeepStackAnswer> {
        const first = await faces.takeFace(deepStackImage(request, 'image1'), call);
        const second = await faces.takeFace(deepStackImage(request, 'image2'), call);
        if (!first || !second) throw new DetectdError('no_face', 'No face found in one or both images');
        const similarity = Math.round(faces.similarity(first.embedding, second.embedding) * 1e5) / 1e5;
        return { fields: { similarity }, message: `similarity ${similarity}` };
      },
    },
  ];
}
