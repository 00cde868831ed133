import { UA, WebSocketInterface } from 'jssip';
type RTCSession = ReturnType<UA['call']>;
import { ApiRequestError, type ApiClient } from './api.ts';

/** What `GET /app/api/voice` gives a signed-in softphone. */
interface VoiceLogin {
  wsUrl: string;
  sipUri: string;
  username: string;
  password: string;
  expiresAt: string;
}

/** One call as the in-call screen shows it. */
export interface CallView {
  to: string;
  state: 'connecting' | 'ringing' | 'active' | 'ended';
  /** When the other party answered (ms since the epoch), for the timer. */
  answeredAt: number | null;
  muted: boolean;
  held: boolean;
  /** Why it ended, in words, when it did not end by hang-up. */
  endReason: string | null;
}

/** A call in progress and what the screen can do with it. */
export interface PhoneCall {
  view(): CallView;
  onChange(listener: (view: CallView) => void): () => void;
  hangUp(): void;
  mute(on: boolean): void;
  hold(on: boolean): void;
  dtmf(digit: string): void;
}

/** Why a call could not start: the microphone refused, or voice off on this server. */
export class PhoneError extends Error {
  readonly kind: 'microphone' | 'unavailable' | 'unreachable';
  constructor(kind: PhoneError['kind'], message: string) {
    super(message);
    this.kind = kind;
  }
}

interface Agent {
  ua: UA;
  mode: string;
  host: string;
  expiresAt: number;
  /** The next renewal of its credentials. */
  renewal: ReturnType<typeof setTimeout> | null;
}

/** The agent, or the one being made: screens asking at once share it. */
let agent: Promise<Agent> | null = null;

/** The SIP user agent of this session and mode, connected over Kamailio's WebSocket. */
async function userAgent(api: ApiClient): Promise<Agent> {
  const pending = agent;
  const current = pending ? await pending.catch(() => null) : null;
  // Its credentials are renewed as it runs (scheduleRenewal): a new agent only for another
  // mode, or once they ran out.
  if (current && current.mode === api.mode && current.expiresAt > Date.now()) {
    return current;
  }
  // Another screen replaced it meanwhile: use that one.
  if (agent !== pending) return userAgent(api);
  if (current) halt(current);
  const next = connect(api);
  agent = next;
  next.catch(() => {
    if (agent === next) agent = null;
  });
  return next;
}

/** Unregisters and disconnects this device (sign-out): it rings no more and calls no more. */
export function stopPhone(): void {
  const pending = agent;
  agent = null;
  void pending?.then(halt).catch(() => {});
}

/** Ends the agent's calls, unregisters it and stops renewing its credentials. */
function halt(current: Agent): void {
  if (current.renewal) clearTimeout(current.renewal);
  current.renewal = null;
  current.ua.stop();
}

/** Failed renewals are tried again this often, until the credentials run out. */
const RENEW_RETRY_MS = 5_000;

/**
 * Renews the agent's credentials halfway through their life, in place: the UA, its
 * registration and any call in progress carry on with the new login. A session that has
 * ended gets none (401): the agent stops at once, and with it any call, as it does when the
 * credentials run out before a renewal succeeds.
 */
function scheduleRenewal(api: ApiClient, current: Agent, delayMs: number): void {
  current.renewal = setTimeout(() => {
    void (async () => {
      try {
        const login = await api.get<VoiceLogin>('/voice');
        current.ua.set('authorization_user', login.username);
        current.ua.set('password', login.password);
        current.expiresAt = Date.parse(login.expiresAt);
        current.ua.register();
        scheduleRenewal(api, current, (current.expiresAt - Date.now()) / 2);
      } catch (error) {
        const ended = error instanceof ApiRequestError && error.status === 401;
        if (ended || Date.now() + RENEW_RETRY_MS >= current.expiresAt) {
          if (agent && (await agent.catch(() => null)) === current) agent = null;
          halt(current);
        } else {
          scheduleRenewal(api, current, RENEW_RETRY_MS);
        }
      }
    })();
  }, delayMs);
}

async function connect(api: ApiClient): Promise<Agent> {
  let login: VoiceLogin;
  try {
    login = await api.get<VoiceLogin>('/voice');
  } catch {
    throw new PhoneError('unavailable', 'Calling is not set up on this Switchboard server.');
  }
  const ua = new UA({
    sockets: [new WebSocketInterface(login.wsUrl)],
    uri: login.sipUri,
    authorization_user: login.username,
    password: login.password,
    register: true,
    session_timers: false,
    user_agent: 'Switchboard softphone',
  });
  ua.start();
  const host = login.sipUri.slice(login.sipUri.indexOf('@') + 1);
  const expiresAt = Date.parse(login.expiresAt);
  const current: Agent = { ua, mode: api.mode, host, expiresAt, renewal: null };
  scheduleRenewal(api, current, (expiresAt - Date.now()) / 2);
  return current;
}

/** How long a call waits for the agent's WebSocket to Switchboard's SIP server. */
const CONNECT_WAIT_MS = 10_000;

/**
 * Resolves once the agent's WebSocket is open: JsSIP fails an INVITE at once when its
 * transport is still connecting (a first call placed right after the phone starts).
 */
function connected(ua: UA): Promise<void> {
  if (ua.isConnected()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      ua.removeListener('connected', done);
      resolve();
    };
    const timer = setTimeout(() => {
      ua.removeListener('connected', done);
      reject(
        new PhoneError(
          'unreachable',
          'The calling server does not answer. Check your connection and try again.',
        ),
      );
    }, CONNECT_WAIT_MS);
    ua.on('connected', done);
  });
}

/** Asks for the microphone now, when a call needs it; a refusal is explained, not thrown raw. */
async function microphone(): Promise<MediaStream> {
  try {
    return await navigator.mediaDevices.getUserMedia({ audio: true, video: false });
  } catch {
    throw new PhoneError(
      'microphone',
      'Switchboard needs your microphone for calls. Allow it in the browser’s site settings and try again.',
    );
  }
}

/** Places a call from `from` (one of the account's numbers) to `to`; the audio plays in `speaker`. */
export async function placeCall(
  api: ApiClient,
  from: string,
  to: string,
  speaker: HTMLAudioElement,
): Promise<PhoneCall> {
  // Voice first: where the server has none, nobody is asked for a microphone.
  const { ua, host } = await userAgent(api);
  await connected(ua);
  const stream = await microphone();
  const session: RTCSession = ua.call(`sip:${to}@${host}`, {
    mediaStream: stream,
    fromUserName: from,
    pcConfig: { iceServers: [] },
    rtcOfferConstraints: { offerToReceiveAudio: true, offerToReceiveVideo: false },
  });
  return follow(session, to, speaker, stream, 'connecting');
}

/**
 * A JsSIP session as a {@link PhoneCall}: its state for the screen, its audio to `speaker`,
 * the microphone released when it ends.
 */
function follow(
  session: RTCSession,
  to: string,
  speaker: HTMLAudioElement,
  stream: MediaStream,
  state: CallView['state'],
): PhoneCall {
  const view: CallView = {
    to,
    state,
    answeredAt: null,
    muted: false,
    held: false,
    endReason: null,
  };
  const listeners = new Set<(view: CallView) => void>();
  const change = (patch: Partial<CallView>) => {
    Object.assign(view, patch);
    for (const listener of listeners) listener({ ...view });
  };
  const stop = () => stream.getTracks().forEach((track) => track.stop());
  const play = (track: MediaStreamTrack, streams: readonly MediaStream[]) => {
    speaker.srcObject = streams[0] ?? new MediaStream([track]);
    void speaker.play().catch(() => {});
  };
  if (session.connection) {
    session.connection.addEventListener('track', (event: RTCTrackEvent) =>
      play(event.track, event.streams),
    );
  } else {
    session.on('peerconnection', ({ peerconnection }) =>
      peerconnection.addEventListener('track', (event: RTCTrackEvent) =>
        play(event.track, event.streams),
      ),
    );
  }
  session.on('progress', () => {
    if (view.state === 'connecting') change({ state: 'ringing' });
  });
  session.on('confirmed', () => change({ state: 'active', answeredAt: Date.now() }));
  session.on('ended', () => {
    stop();
    change({ state: 'ended' });
  });
  session.on('failed', (event: { cause?: string }) => {
    stop();
    change({ state: 'ended', endReason: event.cause ?? 'Call failed' });
  });
  return {
    view: () => ({ ...view }),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    hangUp: () => {
      if (!session.isEnded()) session.terminate();
    },
    mute(on) {
      if (on) session.mute({ audio: true });
      else session.unmute({ audio: true });
      change({ muted: on });
    },
    hold(on) {
      if (on) session.hold();
      else session.unhold();
      change({ held: on });
    },
    dtmf: (digit) => session.sendDTMF(digit),
  };
}

/** A call ringing this device. */
export interface IncomingCall {
  from: string;
  /** Takes the call here (asking for the microphone now). */
  answer(speaker: HTMLAudioElement): Promise<PhoneCall>;
  decline(): void;
  /** Hears once when it stops ringing here: answered on another device, or given up. */
  onGone(listener: (reason: 'answered-elsewhere' | 'ended') => void): void;
}

/**
 * Keeps this device registered so calls to the account ring it, and hands each one to
 * `onIncoming`. Resolves with a function that stops listening; rejects with a PhoneError
 * where the server has no voice.
 */
export async function listenForCalls(
  api: ApiClient,
  onIncoming: (call: IncomingCall) => void,
): Promise<() => void> {
  const { ua } = await userAgent(api);
  const handler = (event: { originator: string; session: RTCSession }) => {
    if (event.originator !== 'remote') return;
    const session = event.session;
    const from = session.remote_identity.uri.user;
    const gone = new Set<(reason: 'answered-elsewhere' | 'ended') => void>();
    session.on('failed', (failure: { message?: { getHeader?(name: string): string } }) => {
      // Another device answered: Kamailio cancels this one with "Reason: SIP;cause=200".
      const reason = failure.message?.getHeader?.('Reason') ?? '';
      const why = /cause=200\b/.test(reason) ? 'answered-elsewhere' : 'ended';
      for (const listener of gone) listener(why);
    });
    onIncoming({
      from,
      async answer(speaker) {
        const stream = await microphone();
        const call = follow(session, from, speaker, stream, 'connecting');
        session.answer({ mediaStream: stream, pcConfig: { iceServers: [] } });
        return call;
      },
      decline: () => {
        if (!session.isEnded()) session.terminate({ status_code: 486, reason_phrase: 'Busy Here' });
      },
      onGone: (listener) => gone.add(listener),
    });
  };
  ua.on('newRTCSession', handler);
  return () => ua.off('newRTCSession', handler);
}
