import type { Kysely } from 'kysely';
import { findInboundRef } from '../store/repos/inbound-refs.ts';
import type { DB } from '../store/schema.ts';
import { namesNothing } from '../store/text-limits.ts';

/** The key of an inbound text among every connection's; none when the provider gave no usable id. */
export function inboundRef(
  connectionId: string,
  providerId: string | undefined,
): string | undefined {
  return providerId && !namesNothing(providerId) ? `${connectionId}/${providerId}` : undefined;
}

/** Whether a text with this key was received already (the provider posts it again). */
export async function receivedAlready(db: Kysely<DB>, ref: string): Promise<boolean> {
  return (await findInboundRef(db, ref)) !== undefined;
}
