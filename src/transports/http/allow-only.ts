import type { Request, Router } from 'express';
import { DetectdError } from '../../core/errors.js';

/**
 * Answers every other method on `path` with 405 `method_not_allowed` and its `Allow` header.
 * `before` runs first: a path whose task must exist says so (404) before the method is judged.
 */
export function allowOnly(router: Router, path: string, methods: readonly string[], before?: (request: Request) => void): void {
  router.all(path, (request, response) => {
    before?.(request);
    response.set('Allow', methods.join(', '));
    throw new DetectdError('method_not_allowed', `use ${methods.join(' or ')}`);
  });
}
