/**
 * Reports: creation request, the report resource and the download result.
 */
import * as t from 'io-ts';
import { REPORT_STATUSES, REPORT_TYPES } from '../reports';
import { annotate, enumOf, nullable, struct, Timestamp, Uuid } from './common';

export const ReportType = enumOf('ReportType', REPORT_TYPES);
export const ReportStatus = annotate(enumOf('ReportStatus', REPORT_STATUSES), { description: 'PENDING while the file is built, then AVAILABLE or FAILED' });

export const ReportCreateRequest = struct(
  'ReportCreateRequest',
  {
    type: annotate(ReportType, { description: 'TRANSACTIONS: one CSV row per payment created in [from, to)' }),
    from: annotate(Timestamp, { description: 'inclusive start (payment created_at)' }),
    to: annotate(Timestamp, { description: 'exclusive end; after from, at most 366 days later' }),
  },
  { account_id: annotate(Uuid, { description: 'only this account; default: every account of your organization' }) },
);

/** Null until the report is AVAILABLE; `integer` sits on the number, where null still passes. */
const FileCount = nullable(annotate(t.number, { type: 'integer', minimum: 0 }));

export const Report = t.type(
  {
    id: Uuid,
    type: ReportType,
    status: ReportStatus,
    from: Timestamp,
    to: Timestamp,
    account_id: nullable(Uuid),
    row_count: annotate(FileCount, { description: 'rows in the file once AVAILABLE' }),
    size_bytes: annotate(FileCount, { description: 'size of the file in bytes once AVAILABLE' }),
    failure_reason: nullable(t.string),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  'Report',
);

export const ReportDownload = t.type(
  {
    type: ReportType,
    download_link: annotate(nullable(t.string), {
      format: 'uri',
      description: 'signed URL, valid for a limited time (REPORT_LINK_TTL_SECONDS, 15 minutes by default), that a browser opens without headers; null until the report is AVAILABLE',
    }),
    status: ReportStatus,
  },
  'ReportDownload',
);
