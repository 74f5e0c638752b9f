import sharp from 'sharp';
import { DetectdError } from '../../src/core/errors.js';
import type { Finding } from '../../src/tasks/finding.js';
import type { Task } from '../../src/tasks/task.js';

/** The second task's type: what its URLs and its services are named by. */
export const WHOLE_IMAGE_TYPE = 'whole-image';

/** One "object": the whole image, named by the task's only parameter. */
async function wholeImage(bytes: Buffer, label: string): Promise<{ width: number; height: number; found: Finding[] }> {
  const { width, height } = await sharp(bytes).metadata().catch(() => {
    throw new DetectdError('invalid_image', 'not an image');
  });
  const found = [{ name: label, parent: 'image', confidence: 1, bounding_box: { left: 0, top: 0, right: width!, bottom: height! } }];
  return { width: width!, height: height!, found };
}

/** `Label` is the task's one parameter; anything else is refused as the real task refuses it. */
function labelOf(configurations: readonly { parameter: string; value: string }[] | undefined): string {
  const unknown = configurations?.find((configuration) => configuration.parameter !== 'Label');
  if (unknown) throw new DetectdError('invalid_configuration', `unknown parameter "${unknown.parameter}"; this endpoint accepts Label`);
  return configurations?.find((configuration) => configuration.parameter === 'Label')?.value ?? 'image';
}

/**
 * A second task, as small as a task can be, registered by a test in the task table it hands the
 * server: it "finds" the whole image, under the name its `Label` parameter gives, in the field
 * `detected_faces` (so that a door that hard-wired the first task's field shows). It reads no
 * model: routing, the gate and the wire forms are what it tests.
 */
export const wholeImageTask: Task<string> = {
  type: WHOLE_IMAGE_TYPE,
  lead: { role: 'detector', kind: 'objects' },
  summary: 'Find the whole image (a test task)',
  requestSchema: 'object-detection-request',
  responseSchema: 'whole-image-response',
  // Its answer declares its own field: what it finds is an object of the shared schema's, under `detected_faces`.
  schemas: [
    {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'whole-image-response.json',
      title: 'WholeImageResponse',
      type: 'object',
      required: ['service_id', 'detected_faces'],
      additionalProperties: false,
      properties: {
        service_id: { $ref: 'object-detection-response.json#/properties/service_id' },
        frame_id: { $ref: 'object-detection-response.json#/properties/frame_id' },
        source_id: { $ref: 'object-detection-response.json#/properties/source_id' },
        detected_faces: { $ref: 'object-detection-response.json#/properties/detected_objects' },
        raw_data: { $ref: 'object-detection-response.json#/properties/raw_data' },
      },
    },
  ],
  parameters: { Label: { versions: ['v1', 'legacy'], defaultValue: 'image', allowed: 'any text', description: 'The name the image is found under.' } },
  answerField: 'detected_faces',
  exampleFields: { Label: 'image' },
  parseParameters: (sent) => labelOf(sent.configurations),
  async analyse(image, label) {
    const { width, height, found } = await wholeImage(image, label);
    return { width, height, found: found.map((finding) => ({ finding, tracked: { classIndex: 0, score: 1, box: { left: 0, top: 0, right: width, bottom: height } } })) };
  },
};
