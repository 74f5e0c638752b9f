import { CompreFaceRefusal, refusedAsArgument } from './compreface-errors.js';
import type { CompreFaceFaces } from './compreface-face-routes.js';
import { subjectParameter, wholeParameter } from './compreface-request.js';
import type { CompreFaceRoute } from './compreface-route.js';

/** A management call's failures (no model runs, no limit is counted: docs/faces.md "Memory"). */
const MANAGEMENT_FAILURES = {
  '400': '`x-api-key` missing (code 20); a bad parameter (code 36) or body (code 26).',
  '404': 'The key opens no face service (code 10): unknown, revoked, or another type\'s.',
};
/** The most ids one bulk deletion takes. */
const MAX_BULK_IDS = 1000;
/** CompreFace's page size when none is asked. */
const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 1000;

const subjectNotFound = (subject: string) => new CompreFaceRefusal('subjectNotFound', 'unknown_person', `Subject ${subject} not found`);
const example = ({ id, name }: { id: string; name: string }) => ({ image_id: id, subject: name });

/**
 * What CompreFace's clients manage of a face service's gallery (Gate.manage: answered while the
 * model is unloaded or busy, never counted against a limit): its examples — registered faces, a
 * page at a time, forgotten by id, in bulk or by subject — and its subjects, the people.
 * detectd keeps no example's photo (docs/faces.md "What is kept"): the two image routes answer
 * CompreFace's "not found", an empty body.
 */
export function compreFaceExampleRoutes({ gallery, examples }: Pick<CompreFaceFaces, 'gallery' | 'examples'>): CompreFaceRoute[] {
  const noPhoto = async () => ({ image: Buffer.alloc(0) });
  return [
    {
      method: 'get',
      path: '/api/v1/recognition/faces',
      operationId: 'compreface-list-examples',
      summary: 'CompreFace: the service\'s examples, a page at a time (oldest first)',
      query: { page: 'The page, from 0 (default 0).', size: `Examples a page, 1–${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`, subject: 'Only this subject\'s examples.' },
      answerSchema: 'compreface-examples-response',
      failures: MANAGEMENT_FAILURES,
      async manage({ query }, service) {
        const page = wholeParameter(query, 'page', 0, 0);
        const size = Math.min(wholeParameter(query, 'size', DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
        if (!Number.isSafeInteger(page * size)) throw new CompreFaceRefusal('incorrectArgument', 'invalid_configuration', 'page × size must be a whole number a gallery could reach');
        const listed = await examples.page(service.id, { name: subjectParameter(query, false), offset: page * size, size });
        return { json: { faces: listed.examples.map(example), page_number: page, page_size: size, total_pages: Math.ceil(listed.total / size), total_elements: listed.total } };
      },
    },
    {
      method: 'delete',
      path: '/api/v1/recognition/faces',
      operationId: 'compreface-delete-examples',
      summary: 'CompreFace: forget every example of a subject (the subject stays), or of every subject when none is named',
      query: { subject: 'The subject; absent: every example of the service.' },
      answerSchema: 'compreface-deleted-response',
      failures: MANAGEMENT_FAILURES,
      manage: async ({ query }, service) => ({ json: { deleted: await examples.forgetAllOf(service.id, subjectParameter(query, false)) } }),
    },
    {
      method: 'post',
      path: '/api/v1/recognition/faces/delete',
      operationId: 'compreface-delete-examples-by-id',
      summary: 'CompreFace: forget the examples of the ids sent (ids the service lacks are passed over)',
      json: 'compreface-image-ids-request',
      answerSchema: 'compreface-examples-deleted-response',
      failures: MANAGEMENT_FAILURES,
      async manage({ json }, service) {
        const ids = json as string[];
        if (ids.length > MAX_BULK_IDS) throw new CompreFaceRefusal('incorrectArgument', 'invalid_request', `at most ${MAX_BULK_IDS} image ids at once`);
        return { json: (await examples.forget(service.id, ids)).map(example) };
      },
    },
    {
      method: 'delete',
      path: '/api/v1/recognition/faces/:image_id',
      operationId: 'compreface-delete-example',
      summary: 'CompreFace: forget one example',
      answerSchema: 'compreface-example-response',
      failures: { ...MANAGEMENT_FAILURES, '404': `${MANAGEMENT_FAILURES['404']} No example of that id (code 11).` },
      async manage({ params }, service) {
        const [forgotten] = await examples.forget(service.id, [params.image_id]);
        if (!forgotten) throw new CompreFaceRefusal('imageNotFound', 'unknown_person', `Image ${params.image_id} not found`);
        return { json: example(forgotten) };
      },
    },
    {
      method: 'get',
      path: '/api/v1/recognition/faces/:image_id/img',
      operationId: 'compreface-example-image',
      summary: 'CompreFace: an example\'s photo; detectd keeps none, so the body is empty (CompreFace\'s answer for an image it does not have)',
      failures: MANAGEMENT_FAILURES,
      manage: noPhoto,
    },
    {
      method: 'get',
      path: '/api/v1/static/:api_key/images/:image_id',
      operationId: 'compreface-static-image',
      summary: 'CompreFace: an example\'s photo by a URL with the key in it; detectd keeps none, so the body is empty',
      keyInPath: true,
      failures: MANAGEMENT_FAILURES,
      manage: noPhoto,
    },
    {
      method: 'get',
      path: '/api/v1/recognition/subjects',
      operationId: 'compreface-list-subjects',
      summary: 'CompreFace: the service\'s subjects (registered people, with or without examples)',
      answerSchema: 'compreface-subjects-response',
      failures: MANAGEMENT_FAILURES,
      manage: async (_input, service) => ({ json: { subjects: await examples.people(service.id) } }),
    },
    {
      method: 'post',
      path: '/api/v1/recognition/subjects',
      operationId: 'compreface-add-subject',
      summary: 'CompreFace: create a subject with no example yet',
      json: 'compreface-subject-request',
      answerSchema: 'compreface-subject-response',
      failures: { ...MANAGEMENT_FAILURES, '400': `${MANAGEMENT_FAILURES['400']} The subject exists already (code 43).` },
      async manage({ json }, service) {
        const { subject } = json as { subject: string };
        if (!(await examples.create(service.id, subject).catch(refusedAsArgument))) throw new CompreFaceRefusal('subjectAlreadyExists', 'invalid_request', 'Subject already exists');
        return { json: { subject: subject.trim() } };
      },
    },
    {
      method: 'put',
      path: '/api/v1/recognition/subjects/:subject',
      operationId: 'compreface-rename-subject',
      summary: 'CompreFace: rename a subject; into an existing subject, their examples are merged',
      json: 'compreface-subject-request',
      answerSchema: 'compreface-subject-updated-response',
      failures: { ...MANAGEMENT_FAILURES, '404': `${MANAGEMENT_FAILURES['404']} No such subject (code 42).` },
      async manage({ json, params }, service) {
        const { subject } = json as { subject: string };
        if (!(await examples.rename(service.id, params.subject, subject).catch(refusedAsArgument))) throw subjectNotFound(params.subject);
        return { json: { updated: true } };
      },
    },
    {
      method: 'delete',
      path: '/api/v1/recognition/subjects/:subject',
      operationId: 'compreface-delete-subject',
      summary: 'CompreFace: forget a subject and every example of theirs',
      answerSchema: 'compreface-subject-response',
      failures: { ...MANAGEMENT_FAILURES, '404': `${MANAGEMENT_FAILURES['404']} No such subject (code 42).` },
      async manage({ params }, service) {
        if (!(await gallery.delete(service.id, params.subject))) throw subjectNotFound(params.subject);
        return { json: { subject: params.subject } };
      },
    },
    {
      method: 'delete',
      path: '/api/v1/recognition/subjects',
      operationId: 'compreface-delete-subjects',
      summary: 'CompreFace: forget every subject of the service and their examples',
      answerSchema: 'compreface-deleted-response',
      failures: MANAGEMENT_FAILURES,
      manage: async (_input, service) => ({ json: { deleted: await examples.forgetEveryone(service.id) } }),
    },
  ];
}
