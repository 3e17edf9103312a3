/**
 * MongoDB connection and the index set every collection relies on.
 *
 * Works with MongoDB >= 6 and with FerretDB 1.24 (SQLite backend), which the embedded stack
 * uses. FerretDB there does not make single-document updates atomic under concurrency (two
 * concurrent conditional updates can both succeed and $inc loses increments) and does not
 * implement TTL indexes. So every concurrency decision in Switchyard is an insert against a
 * unique key (the one primitive both servers make atomic), and expiry is checked on read and
 * purged by the housekeeping workflow instead of a TTL index.
 */
import { Collection, Db, Document, Filter, FindOptions, IndexDescription, MongoClient, WithId } from 'mongodb';

export interface Mongo {
  client: MongoClient;
  db: Db;
}

/** `monitorCommands`: emit the driver's command events (tests audit the shape of every query). */
export async function connectMongo(uri: string, dbName: string, options: { monitorCommands?: boolean } = {}): Promise<Mongo> {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    maxPoolSize: 50,
    appName: 'switchyard',
    monitorCommands: options.monitorCommands ?? false,
  });
  await client.connect();
  return { client, db: client.db(dbName) };
}

/**
 * A document by _id that must also match `scope` (its organization, account...): read by _id
 * alone, then compared here, with the result of findOne({ _id, ...scope }). FerretDB's SQLite
 * backend answers only a filter that is exactly { _id } without reading the whole collection;
 * any further condition makes every lookup cost as much as the collection is large.
 */
export async function findByIdWithin<T extends Document>(collection: Collection<T>, id: unknown, scope: Record<string, unknown>, options?: FindOptions): Promise<WithId<T> | null> {
  const projection = options?.projection && Object.values(options.projection).some((v) => v === 1 || v === true)
    ? { ...options.projection, ...Object.fromEntries(Object.keys(scope).map((k) => [k, 1])) }
    : options?.projection;
  const doc = await collection.findOne({ _id: id } as Filter<T>, { ...options, ...(projection ? { projection } : {}) });
  if (!doc) return null;
  for (const [field, value] of Object.entries(scope)) {
    if ((doc as Record<string, unknown>)[field] !== value) return null;
  }
  return doc;
}

/** Whether the server is FerretDB (it names itself in buildInfo); asked once per client. */
const ferretDbClients = new WeakMap<object, Promise<boolean>>();
export function isFerretDb(db: Db): Promise<boolean> {
  let known = ferretDbClients.get(db.client);
  if (!known) {
    known = db.command({ buildInfo: 1 }).then((info) => 'ferretdbVersion' in info);
    known.catch(() => ferretDbClients.delete(db.client)); // ask again next time
    ferretDbClients.set(db.client, known);
  }
  return known;
}

/**
 * Writes a versioned read model (`doc` without its _id) unless the same or a newer version is
 * stored, so an activity retried late (its worker stalled or died) never rolls it back.
 *
 * MongoDB: one atomic compare-and-set, `{ _id, version: { $lt } }` with upsert. FerretDB reads
 * such a filter by scanning the collection (SQLite backend) and applies it as read, compare,
 * write, not atomically (see the top of this file); so there the same steps are done here by
 * `_id` alone, with the same guarantee at the cost of a keyed read instead of a scan: an
 * insert (the first version, one round trip), else the stored version, then the replace.
 */
export async function replaceIfNewer(collection: Collection<Document>, id: string, doc: Document & { version: number }): Promise<void> {
  const byId: Filter<Document> = { _id: id as never };
  try {
    if (!(await isFerretDb(collection.db))) {
      await collection.replaceOne({ ...byId, version: { $lt: doc.version } }, doc, { upsert: true });
      return;
    }
    await collection.insertOne({ ...doc, _id: id } as never);
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
    if (!(await isFerretDb(collection.db))) return; // a newer version is stored
    const stored = await collection.findOne(byId, { projection: { version: 1 } });
    if (stored && (stored.version as number) >= doc.version) return;
    await collection.replaceOne(byId, doc, { upsert: true });
  }
}

/** Every collection's indexes, in one place so API and worker agree. */
export const INDEXES: Record<string, IndexDescription[]> = {
  organizations: [{ key: { code: 1 }, unique: true, name: 'code_unique' }],
  accounts: [{ key: { organization_code: 1 }, name: 'by_organization' }],
  credentials: [
    { key: { public_api_key: 1 }, unique: true, name: 'public_key_unique' },
    { key: { secret_hash: 1 }, unique: true, name: 'secret_hash_unique' },
  ],
  idempotency_keys: [{ key: { expires_at: 1 }, name: 'by_expiry' }],
  rate_limit_slots: [
    { key: { expires_at: 1 }, name: 'by_expiry' },
    { key: { subject: 1, window: 1 }, name: 'by_subject_window' },
  ],
  pings: [{ key: { organization_code: 1 }, name: 'by_organization' }],
  payments: [
    { key: { organization_code: 1, merchant_order_id: 1 }, name: 'by_merchant_order_id' },
    { key: { account_id: 1, created_at: -1 }, name: 'by_account' },
  ],
  vault_cards: [{ key: { organization_code: 1, fingerprint: 1 }, name: 'by_fingerprint' }],
  vault_security_codes: [{ key: { expires_at: 1 }, name: 'by_expiry' }],
  card_tokens: [{ key: { expires_at: 1 }, name: 'by_expiry' }],
  card_token_uses: [{ key: { expires_at: 1 }, name: 'by_expiry' }],
  customers: [{ key: { organization_code: 1, merchant_customer_id: 1 }, name: 'by_merchant_customer_id' }],
  customer_sessions: [{ key: { expires_at: 1 }, name: 'by_expiry' }],
  payment_methods: [{ key: { customer_id: 1 }, name: 'by_customer' }],
  provider_connections: [{ key: { account_id: 1 }, name: 'by_account' }],
  routing_rules: [{ key: { account_id: 1, priority: 1 }, name: 'by_account_priority' }],
  webhook_deliveries: [{ key: { organization_code: 1, resource_id: 1 }, name: 'by_resource' }],
  domain_events: [{ key: { type: 1, occurred_at: 1 }, name: 'by_type_time' }],
  unreferenced_refunds: [{ key: { organization_code: 1, destination_fingerprint: 1, created_at: 1 }, name: 'by_destination' }],
  recipients: [{ key: { account_id: 1, merchant_recipient_id: 1 }, unique: true, name: 'merchant_recipient_unique' }],
  recipient_onboardings: [{ key: { organization_code: 1, recipient_id: 1 }, name: 'by_recipient' }],
  split_transfers: [{ key: { organization_code: 1, recipient_id: 1 }, name: 'by_recipient' }],
  balance_entries: [
    { key: { operation_key: 1 }, unique: true, name: 'operation_unique' },
    { key: { organization_code: 1, currency: 1, sequence: -1 }, name: 'by_ledger' },
  ],
  subscriptions: [{ key: { organization_code: 1, account_id: 1 }, name: 'by_account' }],
  whitelabel_users: [{ key: { organization_code: 1, email: 1 }, unique: true, name: 'organization_email_unique' }],
  whitelabel_tokens: [{ key: { expires_at: 1 }, name: 'by_expiry' }],
  account_groups: [
    { key: { organization_code: 1, name: 1 }, unique: true, name: 'organization_name_unique' },
    { key: { organization_code: 1, created_at: -1 }, name: 'by_organization_newest' },
  ],
  banking_accounts: [{ key: { organization_code: 1, account_id: 1 }, name: 'by_organization_account' }],
  banking_transfers: [{ key: { organization_code: 1, account_id: 1 }, name: 'by_organization_account' }],
  banking_transfer_events: [{ key: { transfer_id: 1, created_at: 1 }, name: 'by_transfer' }],
  reports: [{ key: { organization_code: 1 }, name: 'by_organization' }],
  sellers: [{ key: { organization_code: 1, merchant_seller_id: 1 }, unique: true, name: 'organization_merchant_seller_id_unique' }],
  dry_run_registrations: [
    // merchant_reference is unique per account: the insert is the atomic check.
    { key: { account_id: 1, merchant_reference: 1 }, unique: true, name: 'account_reference_unique' },
    { key: { organization_code: 1, created_at: -1, _id: -1 }, name: 'by_organization_time' },
  ],
  dry_run_event_batches: [{ key: { registration_id: 1, created_at: 1 }, name: 'by_registration' }],
  dry_run_payments: [{ key: { account_id: 1, merchant_reference: 1, created_at: -1 }, name: 'by_account_reference' }],
  campaigns: [
    { key: { organization_code: 1, created_at: -1, _id: -1 }, name: 'by_organization_newest' },
    { key: { account_id: 1, status: 1 }, name: 'by_account_status' },
  ],
  campaign_rules: [{ key: { campaign_id: 1, created_at: 1 }, name: 'by_campaign' }],
  communications: [{ key: { campaign_id: 1, created_at: -1, _id: -1 }, name: 'by_campaign_newest' }],
  campaign_rate_slots: [
    { key: { expires_at: 1 }, name: 'by_expiry' },
    { key: { campaign_id: 1, user_id: 1, day: 1 }, name: 'by_campaign_user_day' },
  ],
  campaign_event_claims: [{ key: { expires_at: 1 }, name: 'by_expiry' }],
};

/** Collections whose documents carry `expires_at` and are purged by housekeeping. */
export const EXPIRING_COLLECTIONS = [
  'idempotency_keys', 'rate_limit_slots', 'vault_security_codes', 'card_tokens', 'card_token_uses', 'whitelabel_tokens',
  'campaign_rate_slots', 'campaign_event_claims', 'webhook_events', 'webhook_event_stream',
];

/**
 * Creates the indexes that do not exist yet. Existing ones are skipped by name because
 * FerretDB 1.24 drops the connection when createIndexes names an index that already exists.
 */
export async function ensureIndexes(db: Db, indexes: Record<string, IndexDescription[]> = INDEXES): Promise<void> {
  for (const [collection, specs] of Object.entries(indexes)) {
    const existing = new Set(
      await db
        .collection(collection)
        .listIndexes()
        .toArray()
        .then((list) => list.map((index) => index.name as string))
        .catch(() => [] as string[]), // the collection does not exist yet
    );
    for (const { key, ...options } of specs) {
      if (!existing.has(options.name!)) await db.collection(collection).createIndex(key, options as never);
    }
  }
}
