/**
 * Activities of the banking transfer lifecycle and the simulated bank rail (SANDBOX_BANK
 * behaviour for every provider code until real connectors exist). Each one is idempotent:
 * the transfer insert and the events are keyed, and a status update applies only from the
 * state before it, so a retried activity never rewrites a later state or its timestamps.
 * (Only the transfer's own workflow writes, one activity at a time, so these conditional
 * updates decide no race.) Each event is written before the status it announces, so a reader
 * never sees a status without its event; the API shows only the events of statuses reached.
 */
import type { BankingTransferStatus } from '../domain/banking';
import { sandboxSettlement, settlementDelayMs, SettlementOutcome } from '../domain/banking';
import { keyedHash } from '../domain/crypto';
import type { ActivityDeps } from './index';
import { isDuplicateKey } from './repositories/organizations';
import { bankingTransferEvents, bankingTransfers, BankingTransferRecord } from './repositories/banking';

export function createBankingActivities(deps: ActivityDeps) {
  const transfers = bankingTransfers(deps.db);

  async function recordEvent(transfer: { _id: string; organization_code: string }, status: BankingTransferStatus, at: Date): Promise<void> {
    try {
      await bankingTransferEvents(deps.db).insertOne({
        _id: `${transfer._id}:${status}`,
        transfer_id: transfer._id,
        organization_code: transfer.organization_code,
        type: `banking_transfer.${status.toLowerCase()}`,
        status,
        created_at: at,
      });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }

  async function load(transferId: string) {
    const transfer = await transfers.findOne({ _id: transferId });
    if (!transfer) throw new Error(`banking transfer ${transferId} is not stored`);
    return transfer;
  }

  return {
    /** Stores the accepted transfer in PENDING; returns what is stored (the first insert wins). */
    async recordBankingTransfer(record: BankingTransferRecord): Promise<BankingTransferRecord> {
      const createdAt = new Date(record.created_at);
      try {
        await transfers.insertOne({ ...record, status: 'PENDING', created_at: createdAt, updated_at: createdAt, completed_at: null });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const stored = await load(record._id);
      await recordEvent(stored, 'PENDING', stored.created_at);
      return { ...stored, created_at: stored.created_at.toISOString(), updated_at: stored.created_at.toISOString(), status: 'PENDING', completed_at: null };
    },

    /** Submits to the rail: the bank acknowledges with its transfer id; PROCESSING. */
    async submitBankingTransfer(transferId: string): Promise<{ settlesInMs: number }> {
      const transfer = await load(transferId);
      const providerTransferId = `sbk_tr_${keyedHash(deps.keyring, 'fingerprint', transferId, 'sandbox-bank').slice(0, 24)}`;
      const now = new Date();
      await recordEvent(transfer, 'PROCESSING', now);
      await transfers.updateOne({ _id: transferId, status: 'PENDING' }, { $set: { status: 'PROCESSING', 'provider.transfer_id': providerTransferId, updated_at: now } });
      return { settlesInMs: settlementDelayMs(transfer.payment_rail, transfer.destination_account_id !== null, deps.config.bankingSettlementTimeScale) };
    },

    /** The rail's settlement answer: COMPLETED, or FAILED with the bank's reason. */
    async settleBankingTransfer(transferId: string): Promise<SettlementOutcome> {
      const transfer = await load(transferId);
      const destination = transfer.destination_account;
      const outcome = sandboxSettlement(transfer.amount.value, destination?.account_number_last_4 ?? destination?.iban_last_4 ?? null);
      const now = new Date();
      await recordEvent(transfer, outcome.status, now);
      await transfers.updateOne({ _id: transferId, status: 'PROCESSING' }, { $set: { status: outcome.status, failure: outcome.failure, updated_at: now, completed_at: now } });
      return outcome;
    },
  };
}
