// The part of npm's `smpp` (0.5, untyped) that the tests' SMSC uses.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  class PDU {
    constructor(command: string, options?: Record<string, unknown>);
    command: string;
    command_status: number;
    sequence_number: number;
    [field: string]: any;
    response(options?: Record<string, unknown>): PDU;
  }

  interface Session extends EventEmitter {
    socket: Socket;
    send(pdu: PDU): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
  }

  interface Server extends NetServer {
    sessions: Session[];
  }

  interface FieldDef {
    filter?: unknown;
  }

  const smpp: {
    PDU: typeof PDU;
    createServer(options: object, listener: (session: Session) => void): Server;
    commands: Record<string, { params?: Record<string, FieldDef> }>;
    tlvs: Record<string, FieldDef>;
  };
  export type { PDU, Session, Server };
  export default smpp;
}
