import type { Request } from 'express';

/**
 * The base URL callers reach this server at: the configured public URL (DETECTD_PUBLIC_URL), else
 * this request's own — its scheme and host as a trusted proxy forwarded them (DETECTD_TRUST_PROXY),
 * or as the request itself says when no proxy is trusted.
 */
export function baseUrlOf(request: Request, publicUrl: string | undefined): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}
