import type { CookieOptions, Request, Response } from 'express';
import { parseCookie } from 'cookie';

/** A cookie sent with the request, or undefined. */
export function readCookie(request: Request, name: string): string | undefined {
  const header = request.get('cookie');
  return header ? parseCookie(header)[name] : undefined;
}

/** Console cookies: script-proof, same-site, scoped to /console, Secure whenever the request came over TLS. */
export function setConsoleCookie(request: Request, response: Response, name: string, value: string, maxAgeSeconds?: number): void {
  const options: CookieOptions = { httpOnly: true, sameSite: 'lax', path: '/console', secure: request.secure };
  if (maxAgeSeconds !== undefined) options.maxAge = maxAgeSeconds * 1000;
  response.cookie(name, value, options);
}

export function clearConsoleCookie(request: Request, response: Response, name: string): void {
  response.clearCookie(name, { httpOnly: true, sameSite: 'lax', path: '/console', secure: request.secure });
}
