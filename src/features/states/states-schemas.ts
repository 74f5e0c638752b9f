import type { JsonSchema } from '../../core/schema-catalogue.js';
import { ANSWER_HEADER, OBJECT_ITEM } from '../../tasks/answer-schema.js';

const BOX = { $ref: `${OBJECT_ITEM}/bounding_box` };
const NAME = { type: 'string', minLength: 1, maxLength: 100 };
const SOURCE_ID = { type: 'string', maxLength: 256, description: 'The camera (source) the regions belong to; absent: `""`, one unnamed source.' };

/**
 * The states task's JSON Schemas, as modules (a feature folder is compiled to dist/, where a .json
 * file beside it would not be copied): its analysis request and answer, and the bodies of its
 * regions and examples routes.
 */
export const STATES_REQUEST: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'states-request.json',
  title: 'StatesRequest',
  description: 'One frame of a source (camera) whose regions to judge.',
  type: 'object',
  required: ['raw_data'],
  additionalProperties: false,
  properties: {
    raw_data: { $ref: 'object-detection-request.json#/properties/raw_data' },
    frame_id: { $ref: 'object-detection-request.json#/properties/frame_id' },
    source_id: { ...SOURCE_ID, description: 'The camera whose regions are judged; absent: `""`, one unnamed source.' },
    configurations: { $ref: 'face-detection-request.json#/properties/configurations' },
  },
};

export const STATES_RESPONSE: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'states-response.json',
  title: 'StatesResponse',
  description: 'The state of each region of the source in the frame, most confident first.',
  type: 'object',
  required: ['service_id', 'detected_states'],
  additionalProperties: false,
  properties: {
    ...ANSWER_HEADER,
    detected_states: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'parent', 'state', 'confidence', 'bounding_box'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', description: 'The region\'s name.' },
          parent: { const: 'region' },
          state: { type: 'string', description: 'The taught state whose examples are nearest, or `unsure` when none leads the next by the margin (docs/states.md).' },
          confidence: { type: 'number', minimum: 0, maximum: 1, description: 'How clearly the state leads the next: 0.5 at a tie, 0.7 at the margin, 1 from twice it; 0 for a region taught fewer than two states.' },
          bounding_box: BOX,
          cropped_image: { $ref: `${OBJECT_ITEM}/cropped_image` },
          teach_again: {
            type: 'array',
            items: { type: 'string' },
            description: 'The region\'s states whose examples were all embedded by another embedder than the one answering now (the service named another): they are left out of the judgement until taught again (docs/states.md).',
          },
        },
      },
    },
    raw_data: { $ref: 'object-detection-response.json#/properties/raw_data' },
  },
};

export const STATE_REGIONS_REQUEST: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'state-regions-request.json',
  title: 'StateRegionsRequest',
  description: 'Regions to draw on a source: a new name is added, a drawn one redrawn (forgetting its examples).',
  type: 'object',
  required: ['regions'],
  additionalProperties: false,
  properties: {
    source_id: SOURCE_ID,
    regions: {
      type: 'array',
      minItems: 1,
      maxItems: 200,
      items: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: NAME,
          bounding_box: BOX,
          polygon: {
            type: 'array',
            minItems: 3,
            maxItems: 64,
            description: 'The region\'s outline, [x, y] points in frame pixels; its box is their bounds, and what lies outside it in the box is masked.',
            items: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'number' } },
          },
        },
      },
    },
  },
};

export const STATE_EXAMPLES_REQUEST: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'state-examples-request.json',
  title: 'StateExamplesRequest',
  description: 'A frame of the source and the state some of its regions are in: each becomes an example ("this frame: the gate is open"; a correction is the same: "this was X").',
  type: 'object',
  required: ['raw_data', 'states'],
  additionalProperties: false,
  properties: {
    raw_data: { $ref: 'object-detection-request.json#/properties/raw_data' },
    source_id: SOURCE_ID,
    states: { type: 'object', minProperties: 1, maxProperties: 200, additionalProperties: NAME, description: 'Region name → its state in this frame.' },
  },
};

export const STATES_SCHEMAS = [STATES_REQUEST, STATES_RESPONSE, STATE_REGIONS_REQUEST, STATE_EXAMPLES_REQUEST];
