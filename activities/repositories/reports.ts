/**
 * Reports and their files. A report document is written only by its workflow's
 * activities; the file lives in a GridFS bucket (report_files.files / .chunks) under the
 * report id, so files beyond MongoDB's 16 MB document limit work too.
 */
import { findByIdWithin } from '../runtime/mongo';
import { Db, GridFSBucket } from 'mongodb';
import type { ReportStatus, ReportType } from '../../domain/reports';

/** A report as stored; dates are ISO strings in workflow payloads and Dates in MongoDB. */
export interface ReportRecord<D = string> {
  _id: string;
  organization_code: string;
  type: ReportType;
  from: D;
  to: D;
  account_id: string | null;
  status: ReportStatus;
  row_count: number | null;
  size_bytes: number | null;
  sha256: string | null;
  failure_reason: string | null;
  created_at: D;
  updated_at: D;
}

export type ReportDoc = ReportRecord<Date>;

export const reports = (db: Db) => db.collection<ReportDoc>('reports');
export const reportFiles = (db: Db) => new GridFSBucket(db, { bucketName: 'report_files' });

export function findOwnedReport(db: Db, organizationCode: string, reportId: string) {
  return findByIdWithin(reports(db), reportId, { organization_code: organizationCode });
}
