// `switchboard carriers add|list|remove`: the operator's side of live carrier connections
// (docs/behaviour.md#carrier-connections). The password is sealed before it is stored and
// never printed: the answer is the connection as the dashboard shows it.
import { addCarrier, type AddCarrierInput } from '../commands/add-carrier.ts';
import { removeCarrier } from '../commands/remove-carrier.ts';
import type { Clock } from '../lib/clock.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { withWebhookUrls, type CarrierConnectionView } from '../presenters/carrier-connection.ts';
import { listCarrierViews } from '../queries/carriers.ts';
import { accountScoped } from '../store/scope.ts';
import type { Store } from '../store/store.ts';

/** The flags of `carriers add`, as parsed. */
export interface CarrierFlags {
  type?: string | undefined;
  host?: string | undefined;
  port?: string | undefined;
  'system-id'?: string | undefined;
  password?: string | undefined;
  'system-type'?: string | undefined;
  tls?: boolean | undefined;
  window?: string | undefined;
  throughput?: string | undefined;
  'long-messages'?: string | undefined;
  'receipt-ids'?: string | undefined;
  'bind-mode'?: string | undefined;
  'account-sid'?: string | undefined;
  'auth-token'?: string | undefined;
  'messaging-service-sid'?: string | undefined;
  'api-key'?: string | undefined;
  'public-key'?: string | undefined;
  'messaging-profile-id'?: string | undefined;
  'api-base'?: string | undefined;
  transport?: string | undefined;
  username?: string | undefined;
}

/** `carriers add`: the flags as the command's input (numbers stay text; the domain checks them). */
export function carrierInput(flags: CarrierFlags): AddCarrierInput {
  return {
    type: flags.type,
    host: flags.host,
    port: flags.port,
    systemId: flags['system-id'],
    password: flags.password,
    systemType: flags['system-type'],
    tls: flags.tls,
    window: flags.window,
    throughput: flags.throughput,
    longMessages: flags['long-messages'],
    receiptIds: flags['receipt-ids'],
    bindMode: flags['bind-mode'],
    accountSid: flags['account-sid'],
    authToken: flags['auth-token'],
    messagingServiceSid: flags['messaging-service-sid'],
    apiKey: flags['api-key'],
    publicKey: flags['public-key'],
    messagingProfileId: flags['messaging-profile-id'],
    apiBase: flags['api-base'],
    transport: flags.transport,
    username: flags.username,
  };
}

export async function addCarrierConnection(
  store: Store,
  accountId: string,
  input: AddCarrierInput,
  deps: { clock: Clock; secrets: SecretBox; publicUrl: string | null },
): Promise<CarrierConnectionView> {
  const seal = (secret: string) => deps.secrets.seal(secret);
  const view = await store.write((tx) =>
    addCarrier(tx, accountId, input, { clock: deps.clock, seal }),
  );
  return withWebhookUrls(view, deps.publicUrl);
}

export function listCarrierConnections(
  store: Store,
  accountId: string,
  clock: Clock,
  publicUrl: string | null,
): Promise<{ data: CarrierConnectionView[] }> {
  return listCarrierViews(accountScoped(store.db, accountId), clock.now()).then((data) => ({
    data: data.map((view) => withWebhookUrls(view, publicUrl)),
  }));
}

export function removeCarrierConnection(store: Store, id: string, clock: Clock) {
  return store.write((tx) => removeCarrier(tx, { id }, { clock }));
}

/** One line per connection, for people. */
export function describeCarriers(views: CarrierConnectionView[]): string {
  if (views.length === 0) return 'No carrier connections.';
  return views
    .map(
      (v) =>
        `${v.id}  ${v.type}  ${describeEndpoint(v)}  ${v.status}` +
        (v.lastError ? `  (${v.lastError})` : ''),
    )
    .join('\n');
}

/** Where a connection leads: the SMSC and its system id, a SIP trunk, or the provider's API and account. */
function describeEndpoint(v: CarrierConnectionView): string {
  if (v.type === 'smpp') return `${v.host}:${v.port}  ${v.systemId}`;
  if (v.type === 'sip') return `${v.host}:${v.port}  ${v.transport}`;
  const who = v.type === 'twilio' ? v.accountSid : (v.messagingProfileId ?? '');
  const urls = v.webhookUrls
    ? `  status ${v.webhookUrls.status}  inbound ${v.webhookUrls.inbound}`
    : '';
  return `${v.apiBase}  ${who}${urls}`;
}
