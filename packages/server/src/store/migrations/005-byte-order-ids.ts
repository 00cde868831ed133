import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Text columns whose order means time: prefixed ids are time-ordered and mix
 * upper and lower case, so they must compare byte by byte. SQLite always does;
 * PostgreSQL compares by the database's collation (`en_US` sorts `a` before
 * `B`), which would put same-second ids out of order. `COLLATE "C"` fixes it.
 */
const ORDERED_TEXT: Record<string, string[]> = {
  accounts: ['id'],
  api_keys: ['id', 'account_id'],
  phone_numbers: ['id', 'account_id'],
  users: ['id', 'account_id'],
  contacts: ['id'],
  events: ['id'],
  conversations: ['id'],
  conversation_participants: ['conversation_id'],
  messages: ['id', 'conversation_id'],
  message_recipients: ['message_id'],
  outbound_queue: ['message_id'],
  sandbox_receipts: ['id'],
  calls: ['id'],
  webhook_endpoints: ['id'],
  webhook_deliveries: ['id', 'event_id', 'endpoint_id'],
  webhook_attempts: ['id', 'delivery_id'],
};

/** Gives time-ordered text columns byte order on PostgreSQL; nothing to do on SQLite. */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const [table, columns] of Object.entries(ORDERED_TEXT)) {
    for (const column of columns) {
      await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type text collate "C"`.execute(
        db,
      );
    }
  }
}
