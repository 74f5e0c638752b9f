import type { IncomingMessage, ServerResponse } from 'node:http';

/** After an early error answer, how long the server keeps reading (and dropping) an unwanted body so the client can read the answer before the connection closes. */
export const LINGER_MS = 2_000;

/**
 * For an answer given before the request body was read (refused key, oversized or malformed
 * body, deadline): the connection is closed rather than kept alive to drain a body nobody wants.
 * The server keeps reading and dropping for a short while after its answer (as nginx's
 * lingering close) so that the client is not reset before it has read the answer.
 */
export function closeAfterEarlyAnswer(request: IncomingMessage, response: ServerResponse): void {
  if (request.complete) return;
  closeAfterAnswer(response);
}

/**
 * Closes the connection once `response` is sent, lingering as above: says `Connection: close` when its
 * head is still to be written, and ends the connection after it either way.
 */
export function closeAfterAnswer(response: ServerResponse): void {
  const socket = response.socket;
  if (!socket) return;
  // Node ends a `Connection: close` response with `destroySoon`, which resets a socket that still has unread bytes.
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once('close', () => clearTimeout(timer));
  };
  if (!response.headersSent) response.setHeader('Connection', 'close');
  // A head already sent kept the connection alive: Node would leave it open after the answer.
  else response.once('finish', () => socket.destroySoon());
}
