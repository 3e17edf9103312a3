/**
 * Activities of the report lifecycle. Building is idempotent: a retry deletes the file a
 * failed attempt may have left and writes it again under the same id.
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { Filter } from 'mongodb';
import { PaymentLike, ReportStatus, TRANSACTIONS_CSV_HEADER, transactionsCsvRow } from '../domain/reports';
import type { ActivityDeps } from './index';
import { isDuplicateKey } from './repositories/organizations';
import { reportFiles, ReportRecord, reports } from './repositories/reports';

const CHUNK_BYTES = 256 * 1024;

export interface BuiltReport {
  rowCount: number;
  sizeBytes: number;
  sha256: string;
}

export function createReportActivities(deps: ActivityDeps) {
  const collection = reports(deps.db);

  async function load(reportId: string) {
    const report = await collection.findOne({ _id: reportId });
    if (!report) throw new Error(`report ${reportId} is not stored`);
    return report;
  }

  async function setStatus(reportId: string, status: ReportStatus, fields: Partial<ReportRecord<Date>>) {
    // From PENDING only: a retried activity never rewrites the final state (only this
    // report's workflow writes, so the condition decides no race).
    await collection.updateOne({ _id: reportId, status: 'PENDING' }, { $set: { ...fields, status, updated_at: new Date() } });
  }

  return {
    /** Stores the accepted report in PENDING; returns what is stored (the first insert wins). */
    async recordReport(record: ReportRecord): Promise<ReportRecord> {
      const created = new Date(record.created_at);
      try {
        await collection.insertOne({ ...record, from: new Date(record.from), to: new Date(record.to), created_at: created, updated_at: created });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const stored = await load(record._id);
      return { ...stored, from: stored.from.toISOString(), to: stored.to.toISOString(), created_at: stored.created_at.toISOString(), updated_at: stored.updated_at.toISOString() };
    },

    /** Writes the TRANSACTIONS CSV (header, then payments by created_at) into GridFS. */
    async buildTransactionsReport(reportId: string): Promise<BuiltReport> {
      const report = await load(reportId);
      // Payment documents (the payments feature's PaymentRecord) carry organization_code and
      // created_at as an ISO 8601 UTC string, which orders and compares lexicographically.
      const filter: Filter<PaymentLike & { organization_code: string }> = {
        organization_code: report.organization_code,
        ...(report.account_id ? { account_id: report.account_id } : {}),
        created_at: { $gte: report.from.toISOString(), $lt: report.to.toISOString() },
      };
      const bucket = reportFiles(deps.db);
      await bucket.delete(reportId as never).catch(() => undefined); // left by an earlier attempt
      const upload = bucket.openUploadStreamWithId(reportId as never, `transactions-${reportId}.csv`, {
        metadata: { organization_code: report.organization_code, content_type: 'text/csv' },
      });
      const finished = new Promise<void>((resolve, reject) => upload.once('finish', resolve).once('error', reject));
      const hash = createHash('sha256');
      let sizeBytes = 0;
      let pending: string[] = [];
      let pendingBytes = 0;
      const flush = async () => {
        if (!pending.length) return;
        const chunk = Buffer.from(pending.join(''), 'utf8');
        pending = [];
        pendingBytes = 0;
        hash.update(chunk);
        sizeBytes += chunk.length;
        if (!upload.write(chunk)) await new Promise((resolve) => upload.once('drain', resolve));
      };
      const add = async (line: string) => {
        pending.push(line);
        pendingBytes += line.length;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      };
      let rowCount = 0;
      try {
        await add(TRANSACTIONS_CSV_HEADER);
        for await (const payment of deps.db.collection<PaymentLike & { organization_code: string }>('payments').find(filter).sort({ created_at: 1, _id: 1 })) {
          if (++rowCount > deps.config.reportMaxRows) {
            throw ApplicationFailure.nonRetryable(`the report would hold more than ${deps.config.reportMaxRows} rows; narrow the period or pick an account`, 'TOO_MANY_ROWS');
          }
          await add(transactionsCsvRow(payment));
        }
        await flush();
        upload.end();
        await finished;
      } catch (error) {
        await upload.abort().catch(() => undefined);
        throw error;
      }
      return { rowCount, sizeBytes, sha256: hash.digest('hex') };
    },

    async completeReport(reportId: string, built: BuiltReport): Promise<void> {
      await setStatus(reportId, 'AVAILABLE', { row_count: built.rowCount, size_bytes: built.sizeBytes, sha256: built.sha256 });
    },

    async failReport(reportId: string, reason: string): Promise<void> {
      await setStatus(reportId, 'FAILED', { failure_reason: reason });
    },
  };
}
