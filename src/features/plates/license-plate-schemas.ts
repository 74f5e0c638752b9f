import type { JsonSchema } from '../../core/schema-catalogue.js';
import { ANSWER_HEADER, OBJECT_ITEM } from '../../tasks/answer-schema.js';

/** Where the shared schemas describe a found thing's fields: a plate's box and crop are an object's. */

/**
 * The licence-plate task's JSON Schemas, as modules (a task folder is compiled to dist/, where a
 * .json file beside it would not be copied): its request, the common one, and its answer, whose
 * plates carry what the reader read.
 */
export const LICENSE_PLATE_REQUEST: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'license-plate-request.json',
  title: 'LicensePlateRequest',
  description: 'One image in which to find and read licence plates, with optional configuration parameters.',
  type: 'object',
  required: ['raw_data'],
  additionalProperties: false,
  properties: {
    raw_data: { $ref: 'object-detection-request.json#/properties/raw_data' },
    frame_id: { $ref: 'object-detection-request.json#/properties/frame_id' },
    source_id: { $ref: 'object-detection-request.json#/properties/source_id' },
    configurations: { $ref: 'face-detection-request.json#/properties/configurations' },
  },
};

export const LICENSE_PLATE_RESPONSE: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'license-plate-response.json',
  title: 'LicensePlateResponse',
  description: 'The licence plates found in the image and read, highest detector confidence first.',
  type: 'object',
  required: ['service_id', 'detected_plates'],
  additionalProperties: false,
  properties: {
    ...ANSWER_HEADER,
    detected_plates: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'parent', 'confidence', 'bounding_box', 'read_confidence'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', description: 'The plate\'s text as read: upper-case letters and digits only, e.g. `DG2Z6U`.' },
          parent: { const: 'plate' },
          confidence: { type: 'number', minimum: 0, maximum: 1, description: 'The detector\'s confidence that the box is a plate.' },
          bounding_box: { $ref: `${OBJECT_ITEM}/bounding_box` },
          read_confidence: { type: 'number', minimum: 0, maximum: 1, description: 'The reader\'s: the mean of its characters\' probabilities.' },
          country: {
            type: 'object',
            required: ['name', 'confidence'],
            additionalProperties: false,
            description: 'The reader\'s guess of the plate\'s country or region, where its model gives one.',
            properties: { name: { type: 'string' }, confidence: { type: 'number', minimum: 0, maximum: 1 } },
          },
          known: { $ref: 'known-plate-match.json' },
          cropped_image: { $ref: `${OBJECT_ITEM}/cropped_image` },
        },
      },
    },
    raw_data: { $ref: 'object-detection-response.json#/properties/raw_data' },
  },
};
