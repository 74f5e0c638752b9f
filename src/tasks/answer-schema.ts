/** Where an object's answer fields are declared (schemas/object-detection-response.json): every task's findings refer to them. */
export const OBJECT_ITEM = 'object-detection-response.json#/properties/detected_objects/items/properties';

/** The fields every task's answer opens with, as the object task's answer declares them. */
export const ANSWER_HEADER = {
  service_id: { $ref: 'object-detection-response.json#/properties/service_id' },
  frame_id: { $ref: 'object-detection-response.json#/properties/frame_id' },
  source_id: { $ref: 'object-detection-response.json#/properties/source_id' },
} as const;
