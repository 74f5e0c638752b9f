import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { SchemaCatalogue } from '../../src/core/schema-catalogue.js';
import { TASK_DESCRIPTIONS } from '../../src/features/index.js';
import { SHARED_DIR } from './paths.js';

/** Every schema the server publishes: schemas/ and those the tasks bring. */
const schemas = new SchemaCatalogue(undefined, TASK_DESCRIPTIONS.all.flatMap((task) => task.schemas ?? []));

/** The CompreFace door's schemas (schemas/compreface-*.json), by the answer each describes. */
export const COMPREFACE_SCHEMA = {
  recognize: 'compreface-recognition-response',
  detect: 'compreface-detection-response',
  verify: 'compreface-verification-response',
  exampleVerify: 'compreface-example-verification-response',
  example: 'compreface-example-response',
  examples: 'compreface-examples-response',
  deletedExamples: 'compreface-examples-deleted-response',
  deletedCount: 'compreface-deleted-response',
  subject: 'compreface-subject-response',
  subjects: 'compreface-subjects-response',
  subjectRenamed: 'compreface-subject-updated-response',
  error: 'compreface-error-response',
} as const;

/** Fails unless `answer` is valid against the named schema of the door, saying where it came from. */
export function expectValid(schema: string, answer: unknown, where: string): void {
  expect(schemas.check(schema, answer), `${where}: ${JSON.stringify(answer).slice(0, 400)}`).to.deep.equal({ ok: true });
}

/** The subjects the door answers for a face it names no one for: `unknown` at similarity 0, which no client's threshold reaches (docs/faces.md "CompreFace's API"). */
export const STRANGER_SUBJECTS = [{ subject: 'unknown', similarity: 0 }] as const;

/** CompreFace's answer to an image in which it finds no face (HTTP 400), which Double Take and the Home Assistant component read by its code and message. */
export const NO_FACE_ERROR = { code: 28, message: 'No face is found in the given image' } as const;

/** A photo without a face: a brown bear's head (COCO val 285), on which the face detector finds none (docs/faces.md, "Phantom faces"). */
export const NO_FACE_PHOTO = path.join(SHARED_DIR, 'eval', 'coco-val122', 'images', '000000000285.jpg');

export interface CompreFaceBox {
  probability: number;
  x_min: number;
  y_min: number;
  x_max: number;
  y_max: number;
}

/** Faces of an answer from left to right (by the left edge of the box), as a person reads the photo. */
export const leftToRight = <Face extends { box: CompreFaceBox }>(faces: readonly Face[]): Face[] => [...faces].sort((a, b) => a.box.x_min - b.box.x_min);

/**
 * A web server on a loopback port that serves the given photos by name, with their media type: an
 * image a client hands over by its URL (the SDKs fetch it, then upload it).
 */
export async function servePhotos(photos: Readonly<Record<string, string>>): Promise<{ url(name: string): string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const file = photos[(request.url ?? '').slice(1)];
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file.endsWith('.png') ? 'image/png' : 'image/jpeg' }).end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
