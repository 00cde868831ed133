// A TLS front for a plain-TCP test SMSC, as stunnel or an SMSC's own TLS port would be: it
// ends TLS (node:tls, a fresh self-signed certificate) and pipes each connection to the SMSC.
import { connect, type Socket } from 'node:net';
import { createServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { makeTestCertificate } from './receiver.ts';

export interface TlsFront {
  port: number;
  /** The certificate to trust (PEM). */
  ca: string;
  stop(): Promise<void>;
}

/** Listens on 127.0.0.1 and forwards every TLS connection to `targetPort` in clear. */
export async function startTlsFront(targetPort: number): Promise<TlsFront> {
  const certificate = makeTestCertificate();
  const sockets = new Set<Socket>();
  const server = createServer(certificate, (secure) => {
    const plain = connect(targetPort, '127.0.0.1');
    for (const socket of [secure, plain]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        secure.destroy();
        plain.destroy();
      });
    }
    secure.pipe(plain).pipe(secure);
  });
  server.on('tlsClientError', () => {}); // a client that refuses the certificate
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    ca: certificate.cert,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
