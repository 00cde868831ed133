import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/**
 * Ports for the voice stack's children, picked at random from 10000–29999 (below the
 * kernel's ephemeral range, so no listen(0) or outgoing connection takes one between the
 * choice and the child's bind) and tried on both TCP and UDP: SIP listens on both.
 */
export async function freeVoicePort(host: string): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * 20_000);
    if ((await tcpFree(host, port)) && (await udpFree(host, port))) return port;
  }
  throw new Error('No free port for the voice stack in 100 tries.');
}

/** A run of `count` UDP ports starting at an even port, none bound now (rtpengine's media). */
export async function freeMediaPorts(host: string, count: number): Promise<[number, number]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const low = 30_000 + 2 * Math.floor(Math.random() * ((10_000 - count) / 2));
    const probes = await Promise.all(
      [low, low + count / 2, low + count - 1].map((p) => udpFree(host, p)),
    );
    if (probes.every(Boolean)) return [low, low + count - 1];
  }
  throw new Error('No free media port range for rtpengine in 50 tries.');
}

export function tcpFree(host: string, port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** Also how readiness of a UDP child is seen: its port can no longer be bound. */
export function udpFree(host: string, port: number): Promise<boolean> {
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  return new Promise((resolve) => {
    socket.once('error', () => resolve(false));
    socket.bind(port, host, () => socket.close(() => resolve(true)));
  });
}
