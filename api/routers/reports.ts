/**
 * Reports: creation (a report workflow builds the file), status, the download result with
 * a signed link (v2; v1 answers the same, marked deprecated), and the file behind the link.
 * Errors use the reports shape {code, messages}: INVALID_REQUEST, INVALID_CREDENTIALS,
 * AUTHORIZATION_REQUIRED.
 */
import { randomUUID } from 'node:crypto';
import { findOwnedAccount } from '../../activities/repositories/merchants';
import { findOwnedReport, reportFiles, ReportDoc, ReportRecord } from '../../activities/repositories/reports';
import { isUuid } from '../../domain/codecs/common';
import { Report, ReportCreateRequest, ReportDownload } from '../../domain/codecs/reports';
import { ApiError } from '../../domain/errors';
import { checkDownloadLink, MAX_REPORT_RANGE_DAYS, signedDownloadQuery } from '../../domain/reports';
import type { AppContext, AppDeps } from '../context';
import { startLifecycle } from '../lifecycle';
import { uuidFromKey } from '../../domain/ids';
import type { RouteTable } from '../routes';
import { resourceSearchAttributes } from '../../domain/search-attributes';

const TAG = 'Reports';
const DAY_MS = 86_400_000;

const reportNotFound = () => new ApiError('not_found', 'report not found', { code: 'REPORT_NOT_FOUND' });
const iso = (value: Date | string) => new Date(value).toISOString();

function reportView(report: ReportRecord<Date | string>) {
  return {
    id: report._id,
    type: report.type,
    status: report.status,
    from: iso(report.from),
    to: iso(report.to),
    account_id: report.account_id,
    row_count: report.row_count,
    size_bytes: report.size_bytes,
    failure_reason: report.failure_reason,
    created_at: iso(report.created_at),
    updated_at: iso(report.updated_at),
  };
}

const REPORT_ID_PARAM = { name: 'report_id', description: 'id returned by POST /v1/reports', schema: { type: 'string', format: 'uuid' } };

export function registerReportRoutes(routes: RouteTable, deps: AppDeps): void {
  async function ownedReport(ctx: AppContext): Promise<ReportDoc> {
    const id = ctx.params.report_id;
    const report = isUuid(id) ? await findOwnedReport(deps.db, ctx.state.principal!.organizationCode, id) : null;
    if (!report) throw reportNotFound();
    return report;
  }

  routes.add(
    {
      method: 'POST', path: '/v1/reports', operationId: 'createReport', awaitsWorkflow: true, tag: TAG, area: 'reports', auth: 'pair',
      summary: 'Request a report',
      description:
        'Starts building the report and answers 202 with status PENDING. TRANSACTIONS is a CSV (RFC 4180, UTF-8, CRLF) with the ' +
        'header payment_id, account_id, merchant_order_id, status, sub_status, amount, currency, captured, refunded, country, ' +
        'payment_method_type, created_at, updated_at and one row per payment created in [from, to), oldest first; with no payment it ' +
        'holds only the header. Poll GET /v1/reports/{id} until AVAILABLE (or FAILED), then GET /v2/reports/{id}/download.',
      idempotency: { required: false, format: 'uuid', onDifferentPayload: 'replay' },
      body: ReportCreateRequest,
      responses: {
        202: { description: 'Accepted: the report in status PENDING', body: Report },
        404: { description: 'ACCOUNT_NOT_FOUND: account_id is not an account of your organization' },
      },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      const from = new Date(body.from);
      const to = new Date(body.to);
      if (to <= from) throw new ApiError('validation', 'to must be after from', { fieldErrors: [{ field: 'to', code: 'INVALID', message: 'to must be after from' }] });
      if (to.getTime() - from.getTime() > MAX_REPORT_RANGE_DAYS * DAY_MS) {
        throw new ApiError('validation', `the period may span at most ${MAX_REPORT_RANGE_DAYS} days`, { fieldErrors: [{ field: 'to', code: 'INVALID', message: `at most ${MAX_REPORT_RANGE_DAYS} days after from` }] });
      }
      if (body.account_id && !(await findOwnedAccount(deps.db, organizationCode, body.account_id))) {
        throw new ApiError('not_found', 'account_id not found', { code: 'ACCOUNT_NOT_FOUND' });
      }
      // From the idempotency key when there is one: a retry lands on the same report and workflow.
      const key = ctx.get('x-idempotency-key');
      const id = key ? uuidFromKey('report', organizationCode, key.toLowerCase()) : randomUUID();
      const now = new Date().toISOString();
      const record: ReportRecord = {
        _id: id,
        organization_code: organizationCode,
        type: body.type,
        from: from.toISOString(),
        to: to.toISOString(),
        account_id: body.account_id ?? null,
        status: 'PENDING',
        row_count: null,
        size_bytes: null,
        sha256: null,
        failure_reason: null,
        created_at: now,
        updated_at: now,
      };
      const stored = await startLifecycle<ReportRecord>(deps, {
        workflowType: 'reportWorkflow',
        workflowId: `report-${id}`,
        args: [{ report: record }],
        searchAttributes: resourceSearchAttributes({ type: 'report', id, organizationCode, status: 'PENDING', accountId: body.account_id }),
      });
      ctx.status = 202;
      ctx.set('Location', `/v1/reports/${id}`);
      ctx.body = reportView(stored);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/reports/:report_id', operationId: 'getReport', tag: TAG, area: 'reports', auth: 'pair-or-bearer',
      summary: 'Read a report and its status',
      pathParams: [REPORT_ID_PARAM],
      responses: { 200: { description: 'The report', body: Report }, 404: { description: 'REPORT_NOT_FOUND' } },
    },
    async (ctx) => {
      ctx.body = reportView(await ownedReport(ctx));
    },
  );

  const downloadSpec = {
    tag: TAG, area: 'reports' as const, auth: 'pair-or-bearer' as const,
    headers: [{ name: 'X-Organization-Code', required: true, description: 'your organization code (with an embed token: the token\'s organization); another organization\'s code answers 403 AUTHORIZATION_REQUIRED' }],
    pathParams: [REPORT_ID_PARAM],
    responses: {
      200: { description: 'The download result; download_link is null while the report is PENDING or FAILED', body: ReportDownload },
      400: { description: 'INVALID_REQUEST: X-Organization-Code missing or not a UUID' },
      401: { description: 'INVALID_CREDENTIALS: missing or wrong keys, or an embed token that is not valid' },
      403: { description: 'AUTHORIZATION_REQUIRED: X-Organization-Code is not the organization of the keys' },
      404: { description: 'REPORT_NOT_FOUND' },
    },
  };

  async function download(ctx: AppContext) {
    const organizationCode = ctx.get('x-organization-code');
    if (!organizationCode || !isUuid(organizationCode)) {
      throw new ApiError('validation', 'the X-Organization-Code header is required and must be your organization code', {
        fieldErrors: [{ field: 'X-Organization-Code', code: organizationCode ? 'INVALID' : 'REQUIRED', message: 'X-Organization-Code must be an organization code (UUID)' }],
      });
    }
    if (organizationCode.toLowerCase() !== ctx.state.principal!.organizationCode.toLowerCase()) {
      throw new ApiError('forbidden', 'these credentials are not authorized for this organization', { code: 'AUTHORIZATION_REQUIRED' });
    }
    const report = await ownedReport(ctx);
    let link: string | null = null;
    if (report.status === 'AVAILABLE') {
      const expires = Math.floor(Date.now() / 1000) + deps.config.reportLinkTtlSeconds;
      link = `${deps.config.publicBaseUrl}/v2/reports/${report._id}/file?${signedDownloadQuery(deps.keyring, report._id, expires)}`;
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { type: report.type, download_link: link, status: report.status };
  }

  routes.add(
    {
      ...downloadSpec,
      method: 'GET', path: '/v2/reports/:report_id/download', operationId: 'downloadReport',
      summary: 'Get the download link of a report',
      description: 'Open download_link in a browser (no headers needed) before it expires; request a new one here afterwards.',
    },
    download,
  );

  routes.add(
    {
      ...downloadSpec,
      method: 'GET', path: '/v1/reports/:report_id/download', operationId: 'downloadReportV1', deprecated: true,
      summary: 'Get the download link of a report (deprecated: use /v2)',
      description: 'Same answer as GET /v2/reports/{report_id}/download, with `Deprecation: true` and `Link: </v2/reports/{report_id}/download>; rel="successor-version"`.',
    },
    async (ctx) => {
      ctx.set('Deprecation', 'true');
      ctx.set('Link', `</v2/reports/${encodeURIComponent(ctx.params.report_id)}/download>; rel="successor-version"`);
      await download(ctx);
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v2/reports/:report_id/file', operationId: 'reportFile', tag: TAG, area: 'reports', auth: 'none', unlimited: true,
      summary: 'The report file behind a signed download link',
      description: 'Needs no headers: the expires and signature query parameters (from download_link) authorize the request until expires.',
      pathParams: [REPORT_ID_PARAM],
      query: [
        { name: 'expires', required: true, description: 'end of validity, seconds since the epoch', schema: { type: 'integer' } },
        { name: 'signature', required: true, description: 'HMAC-SHA256 of the report id and expires', schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
      ],
      responses: {
        200: { description: 'The CSV file (attachment)', contentType: 'text/csv', schema: { type: 'string' } },
        403: { description: 'INVALID_SIGNATURE or LINK_EXPIRED' },
        404: { description: 'REPORT_NOT_FOUND: the file does not exist (any more)' },
      },
    },
    async (ctx) => {
      const id = ctx.params.report_id;
      const check = checkDownloadLink(deps.keyring, id, ctx.query.expires as string | undefined, ctx.query.signature as string | undefined, Math.floor(Date.now() / 1000));
      if (check === 'invalid') throw new ApiError('forbidden', 'the download link is not valid', { code: 'INVALID_SIGNATURE' });
      if (check === 'expired') throw new ApiError('forbidden', 'the download link has expired; request a new one', { code: 'LINK_EXPIRED' });
      const bucket = reportFiles(deps.db);
      const [file] = await bucket.find({ _id: id as never }).limit(1).toArray();
      if (!file) throw reportNotFound();
      ctx.type = 'text/csv; charset=utf-8';
      ctx.length = file.length;
      ctx.set('Content-Disposition', `attachment; filename="${file.filename}"`);
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = bucket.openDownloadStream(id as never);
    },
  );
}
