import type { Response } from 'express';

/** Runs `callback` once when the response is sent or the connection closes first, whichever comes first. */
export function whenAnswered(response: Response, callback: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    callback();
  };
  response.on('finish', once);
  response.on('close', once);
}
