import type { JsonSchema } from '../../../src/core/schema-catalogue.js';

/**
 * The task's own JSON Schemas, as modules (a task folder under src/tasks/ is compiled to dist/,
 * where a .json file beside it would not be copied): its request and its response, whose one
 * finding is about the whole image and so has no box.
 */
export const PLATE_SUMMARY_REQUEST: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'plate-summary-request.json',
  title: 'PlateSummaryRequest',
  description: 'One image whose plate to read, with optional configuration parameters (a test task\'s request).',
  type: 'object',
  required: ['raw_data'],
  additionalProperties: false,
  properties: {
    raw_data: { $ref: 'face-detection-request.json#/properties/raw_data' },
    frame_id: { $ref: 'face-detection-request.json#/properties/frame_id' },
    source_id: { $ref: 'face-detection-request.json#/properties/source_id' },
    configurations: { $ref: 'face-detection-request.json#/properties/configurations' },
  },
};

export const PLATE_SUMMARY_RESPONSE: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'plate-summary-response.json',
  title: 'PlateSummaryResponse',
  description: 'What the image\'s plate says: one finding for the whole image, without a box (a test task\'s answer).',
  type: 'object',
  required: ['service_id', 'detected_plate_summary'],
  additionalProperties: false,
  properties: {
    service_id: { $ref: 'object-detection-response.json#/properties/service_id' },
    frame_id: { $ref: 'object-detection-response.json#/properties/frame_id' },
    source_id: { $ref: 'object-detection-response.json#/properties/source_id' },
    detected_plate_summary: {
      type: 'array',
      minItems: 1,
      maxItems: 1,
      items: {
        type: 'object',
        required: ['name', 'parent', 'confidence', 'text', 'attributes'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', description: 'The text of the plate read most surely, or `no plate`.' },
          parent: { const: 'image' },
          confidence: { type: 'number', minimum: 0, maximum: 1, description: 'The reader\'s mean character probability; 1 less the detector\'s best score when no plate was read.' },
          text: { type: 'string', description: 'The plate\'s text; empty when no plate was read.' },
          attributes: {
            type: 'object',
            required: ['plates'],
            additionalProperties: false,
            properties: { plates: { type: 'integer', minimum: 0, description: 'Plates the detector found.' } },
          },
          track_id: { type: 'integer', description: 'On the JSON stream only.' },
        },
      },
    },
    raw_data: { $ref: 'object-detection-response.json#/properties/raw_data' },
  },
};
