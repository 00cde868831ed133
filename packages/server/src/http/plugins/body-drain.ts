import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * The most of a body answered before it arrived (too large, unauthorized…) that is
 * read and thrown away, and for how long after the answer when the connection
 * closes. 64 bodies' worth of bytes and 10 s let any ordinary client finish
 * sending and read the answer; beyond that the connection is closed regardless.
 */
const DRAIN_MAX_BYTES = 16 * 1024 * 1024;
const DRAIN_MAX_MS = 10_000;

/**
 * Reads and discards the rest of `message`'s body, at most DRAIN_MAX_BYTES; and
 * when node closes the connection after the answer (`Connection: close`, as on a
 * body too large), it first sends its FIN and waits for the body's end (at most
 * DRAIN_MAX_MS). Closing at once, while the client still sends, makes the
 * server's TCP stack answer what arrives next with a reset, which can reach the
 * client before it has read the answer: it then sees a reset instead of the 400.
 */
function drainRest(message: IncomingMessage): void {
  const socket = message.socket;
  let drained = 0;
  message.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_MAX_BYTES) socket.destroy();
  });
  // node calls this after an answer that closes the connection; an own property
  // of this one socket, so no other connection changes.
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (message.complete) {
      Socket.prototype.destroySoon.call(this);
      return;
    }
    this.end();
    const timer = setTimeout(() => this.destroy(), DRAIN_MAX_MS);
    this.once('close', () => clearTimeout(timer));
    // Once the whole body is in, node's own close: as soon as the answer is written.
    message.once('end', () => Socket.prototype.destroySoon.call(this));
  };
}

/**
 * Every answer sent before its request's body has fully arrived leaves the rest
 * to be drained (see drainRest), so that the client can read it.
 */
export function registerBodyDrain(app: FastifyInstance): void {
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (!request.raw.complete) drainRest(request.raw);
    done(null, payload);
  });
}
