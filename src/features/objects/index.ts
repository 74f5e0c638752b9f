import type { Feature } from '../feature.js';
import { deepStackDetectionRoutes } from './deepstack-detection-routes.js';
import { objectDetection } from './object-detection-task.js';

/**
 * Objects (docs/models.md): the `object-detection` task (the service's detector alone, any model of
 * its kind, at the caller's classes and confidence), and DeepStack's detection and custom-model routes.
 */
export const objects: Feature = {
  name: 'objects',
  docs: 'docs/models.md',
  parts: () => ({ tasks: [objectDetection], deepStack: [{ task: objectDetection, routes: deepStackDetectionRoutes(objectDetection) }] }),
};
