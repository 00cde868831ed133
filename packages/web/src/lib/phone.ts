import { UA, WebSocketInterface } from 'jssip';
type RTCSession = ReturnType<UA['call']>;
import type { ApiClient } from './api.ts';

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
  readonly kind: 'microphone' | 'unavailable';
  constructor(kind: PhoneError['kind'], message: string) {
    super(message);
    this.kind = kind;
  }
}

let agent: { ua: UA; mode: string; host: string; expiresAt: number } | null = null;

/** The SIP user agent of this session and mode, connected over Kamailio's WebSocket. */
async function userAgent(api: ApiClient): Promise<{ ua: UA; host: string }> {
  // Credentials last minutes: a new agent with fresh ones once they are near their end.
  if (agent && agent.mode === api.mode && agent.expiresAt - Date.now() > 60_000) return agent;
  agent?.ua.stop();
  agent = null;
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
  agent = { ua, mode: api.mode, host, expiresAt: Date.parse(login.expiresAt) };
  return agent;
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
  const stream = await microphone();
  const view: CallView = {
    to,
    state: 'connecting',
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
  const session: RTCSession = ua.call(`sip:${to}@${host}`, {
    mediaStream: stream,
    fromUserName: from,
    pcConfig: { iceServers: [] },
    rtcOfferConstraints: { offerToReceiveAudio: true, offerToReceiveVideo: false },
  });
  const stop = () => stream.getTracks().forEach((track) => track.stop());
  session.connection.addEventListener('track', (event: RTCTrackEvent) => {
    speaker.srcObject = event.streams[0] ?? new MediaStream([event.track]);
    void speaker.play().catch(() => {});
  });
  session.on('progress', () => change({ state: 'ringing' }));
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
