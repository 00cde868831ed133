import type { Migration, MigrationProvider } from 'kysely/migration';
import * as foundation from './001-foundation.ts';
import * as messaging from './002-messaging.ts';
import * as webhooks from './003-webhooks.ts';
import * as softphone from './004-softphone.ts';
import * as byteOrderIds from './005-byte-order-ids.ts';
import * as coveringDueIndexes from './006-covering-due-indexes.ts';
import * as leaseOutsideDueIndex from './007-lease-outside-due-index.ts';
import * as sandboxNetworkFromRecipients from './008-sandbox-network-from-recipients.ts';
import * as submissionsOnRecipients from './009-submissions-on-recipients.ts';
import * as roomForHeapOnlyClaims from './010-room-for-heap-only-claims.ts';
import * as directConversationKey from './011-direct-conversation-key.ts';
import * as autoReplies from './012-auto-replies.ts';
import * as retentionIndexes from './013-retention-indexes.ts';
import * as eventsInRecoveryOrder from './014-events-in-recovery-order.ts';
import * as forgetSecretsInClear from './015-forget-secrets-in-clear.ts';
import * as carrierConnections from './016-carrier-connections.ts';
import * as carrierParts from './017-carrier-parts.ts';
import * as inboundParts from './025-inbound-parts.ts';
import * as teamWorkflow from './026-team-workflow.ts';
import * as webPush from './027-web-push.ts';
import * as disabledUsers from './028-disabled-users.ts';
import * as pushClaims from './029-push-claims.ts';
import * as media from './030-media.ts';
import * as inboundRefs from './031-inbound-refs.ts';
import * as voiceTrunks from './032-voice-trunks.ts';
import * as openCalls from './033-open-calls.ts';
import * as voiceInstances from './034-voice-instances.ts';

/**
 * Every migration in order. They are listed, not discovered from the file
 * system, so the set that runs is exactly the set that was type-checked.
 */
const MIGRATIONS: Record<string, Migration> = {
  '001-foundation': foundation,
  '002-messaging': messaging,
  '003-webhooks': webhooks,
  '004-softphone': softphone,
  '005-byte-order-ids': byteOrderIds,
  '006-covering-due-indexes': coveringDueIndexes,
  '007-lease-outside-due-index': leaseOutsideDueIndex,
  '008-sandbox-network-from-recipients': sandboxNetworkFromRecipients,
  '009-submissions-on-recipients': submissionsOnRecipients,
  '010-room-for-heap-only-claims': roomForHeapOnlyClaims,
  '011-direct-conversation-key': directConversationKey,
  '012-auto-replies': autoReplies,
  '013-retention-indexes': retentionIndexes,
  '014-events-in-recovery-order': eventsInRecoveryOrder,
  '015-forget-secrets-in-clear': forgetSecretsInClear,
  '016-carrier-connections': carrierConnections,
  '017-carrier-parts': carrierParts,
  '025-inbound-parts': inboundParts,
  '026-team-workflow': teamWorkflow,
  '027-web-push': webPush,
  '028-disabled-users': disabledUsers,
  '029-push-claims': pushClaims,
  '030-media': media,
  '031-inbound-refs': inboundRefs,
  '032-voice-trunks': voiceTrunks,
  '033-open-calls': openCalls,
  '034-voice-instances': voiceInstances,
};

/** Kysely's migration provider over the list above. */
export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
