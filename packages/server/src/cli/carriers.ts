// `switchboard carriers add|list|remove`: the operator's side of live carrier connections
// (docs/behaviour.md#carrier-connections). The password is sealed before it is stored and
// never printed: the answer is the connection as the dashboard shows it.
import { addCarrier, type AddCarrierInput } from '../commands/add-carrier.ts';
import { removeCarrier } from '../commands/remove-carrier.ts';
import type { Clock } from '../lib/clock.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { CarrierConnectionView } from '../presenters/carrier-connection.ts';
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
  };
}

export function addCarrierConnection(
  store: Store,
  accountId: string,
  input: AddCarrierInput,
  deps: { clock: Clock; secrets: SecretBox },
): Promise<CarrierConnectionView> {
  const seal = (secret: string) => deps.secrets.seal(secret);
  return store.write((tx) => addCarrier(tx, accountId, input, { clock: deps.clock, seal }));
}

export function listCarrierConnections(
  store: Store,
  accountId: string,
  clock: Clock,
): Promise<{ data: CarrierConnectionView[] }> {
  return listCarrierViews(accountScoped(store.db, accountId), clock.now()).then((data) => ({
    data,
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
        `${v.id}  ${v.type}  ${v.host}:${v.port}  ${v.systemId}  ${v.status}` +
        (v.lastError ? `  (${v.lastError})` : ''),
    )
    .join('\n');
}
