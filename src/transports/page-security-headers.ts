import type { RequestHandler } from 'express';

/**
 * Headers of the server's own pages (console, /docs): scripts, styles and calls come only from this
 * server; images may also be data: or blob: URLs (an answer's annotated image, Swagger UI's icons).
 */
export const pageSecurityHeaders: RequestHandler = (_request, response, next) => {
  response.setHeader(
    'Content-Security-Policy',
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
  );
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Referrer-Policy', 'same-origin');
  response.setHeader('X-Frame-Options', 'DENY');
  next();
};
