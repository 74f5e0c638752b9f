import type SharpConstructor from 'sharp';

type Sharp = typeof SharpConstructor;

let loading: Promise<Sharp> | undefined;

/**
 * sharp (libvips), imported on first use rather than with the modules that use it: the task table
 * imports them, and so every `detectd` command would pay libvips' start to decode no image
 * (docs/development.md, "What makes the suite slow"). The server loads it at start-up (server.ts),
 * before any request.
 */
export function loadSharp(): Promise<Sharp> {
  loading ??= import('sharp').then((module) => module.default);
  return loading;
}
