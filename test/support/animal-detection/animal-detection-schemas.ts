import type { JsonSchema } from '../../../src/core/schema-catalogue.js';

/**
 * The task's own JSON Schemas, as modules (a task folder under src/tasks/ is compiled to dist/,
 * where a .json file beside it would not be copied): its request and its response, referring to
 * the shared schemas' fields.
 */
export const ANIMAL_DETECTION_REQUEST: JsonSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "animal-detection-request.json",
  "title": "AnimalDetectionRequest",
  "description": "One image in which to find animals, with optional configuration parameters (a test task's request).",
  "type": "object",
  "required": [
    "raw_data"
  ],
  "additionalProperties": false,
  "properties": {
    "raw_data": {
      "$ref": "face-detection-request.json#/properties/raw_data"
    },
    "frame_id": {
      "$ref": "face-detection-request.json#/properties/frame_id"
    },
    "source_id": {
      "$ref": "face-detection-request.json#/properties/source_id"
    },
    "configurations": {
      "$ref": "face-detection-request.json#/properties/configurations"
    }
  }
};

export const ANIMAL_DETECTION_RESPONSE: JsonSchema = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "animal-detection-response.json",
  "title": "AnimalDetectionResponse",
  "description": "Animals found in the image, highest confidence first (a test task's answer).",
  "type": "object",
  "required": [
    "service_id",
    "detected_animals"
  ],
  "additionalProperties": false,
  "properties": {
    "service_id": {
      "$ref": "object-detection-response.json#/properties/service_id"
    },
    "frame_id": {
      "$ref": "object-detection-response.json#/properties/frame_id"
    },
    "source_id": {
      "$ref": "object-detection-response.json#/properties/source_id"
    },
    "detected_animals": {
      "$ref": "object-detection-response.json#/properties/detected_objects"
    },
    "raw_data": {
      "$ref": "object-detection-response.json#/properties/raw_data"
    }
  }
};
