import type { ErrorTable } from '../../core/errors.js';

/** The plates' own error codes (Feature.errors): what managing a service's known plates can refuse. */
export const PLATE_ERRORS = {
  known_plate_not_found: { status: 404, summary: 'The licence-plate service lists no known plate of that id or plate.' },
  known_plate_exists: { status: 409, summary: 'The licence-plate service lists that plate already (O and 0, I and 1 counting as one character), or a request lists it twice.' },
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  /** The plates' codes, thrown as DetectdErrors and checked where thrown. */
  interface FeatureErrors {
    plates: typeof PLATE_ERRORS;
  }
}
