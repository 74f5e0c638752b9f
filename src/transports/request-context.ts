import type { Response } from 'express';
import type { CallContext } from '../core/call-context.js';

/** The call context of an HTTP request, created by `requestId` and read by the hooks that record the call. */
export function contextOf(response: Response): CallContext {
  return (response.locals as { call: CallContext }).call;
}
