import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
import { DetectdError } from '../core/errors.js';
import { readCookie, setConsoleCookie } from './cookies.js';

const COOKIE = 'detectd_csrf';
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF protection for the console, signed double-submit: each browser holds a random cookie and
 * every form (or script call, as `X-CSRF-Token`) must carry the HMAC of it under a key derived
 * from the server secret. Another site can neither read the cookie nor compute the token, and a
 * planted cookie is useless without the secret. Works before sign-in too (sign-in, sign-up forms).
 */
export function csrfProtection(serverSecret: string): RequestHandler {
  const key = Buffer.from(crypto.hkdfSync('sha256', serverSecret, 'detectd', 'console-csrf/v1', 32));
  const tokenFor = (cookie: string) => crypto.createHmac('sha256', key).update(cookie).digest('base64url');
  return (request, response, next) => {
    let cookie = readCookie(request, COOKIE);
    const hadCookie = cookie !== undefined && COOKIE_VALUE.test(cookie);
    if (!hadCookie) {
      cookie = crypto.randomBytes(32).toString('base64url');
      setConsoleCookie(request, response, COOKIE, cookie);
    }
    const expected = tokenFor(cookie!);
    response.locals.csrfToken = expected;
    if (SAFE_METHODS.has(request.method)) return next();
    const body = request.body as Record<string, unknown> | undefined;
    const offered = request.get('x-csrf-token') ?? body?._csrf;
    const valid = hadCookie && typeof offered === 'string' && sameToken(offered, expected);
    if (!valid) throw new DetectdError('forbidden', 'This form has expired or did not come from this console. Reload the page and try again.');
    next();
  };
}

function sameToken(offered: string, expected: string): boolean {
  const left = Buffer.from(offered);
  const right = Buffer.from(expected);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
