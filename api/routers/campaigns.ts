/**
 * Communications campaigns (contract, "Campaigns"): rule-driven WhatsApp messages or phone
 * calls triggered when a payment is declined.
 *
 * Designed where the contract is silent, and documented in the OpenAPI document:
 * - PATCH /v1/campaigns/{id} (the contract's "PATCH on the campaign"), or its alias
 *   PATCH /v1/campaigns/{id}/status, {status: ACTIVE|PAUSED|COMPLETED|CANCELLED} changes the
 *   status; asking for the current status is a no-op 200. DELETE /v1/campaigns/{id} cancels
 *   too (CANCELLED, kept for audit). COMPLETED and CANCELLED are terminal: any change of the
 *   campaign or its rules is a 422.
 * - GET /v1/campaigns filters by status, channel, country, account_id, newest first, with
 *   an opaque cursor; GET/PATCH /v1/rules/{rule_id}; new rules start ACTIVE.
 * - POST /v1/campaigns/{id}/test-events dry-runs a sample declined payment against the
 *   rules; GET /v1/campaigns/{id}/communications lists what was sent.
 * Reads go to MongoDB; every change goes through the campaign's workflow (workflows/campaign.ts).
 */
import * as t from 'io-ts';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, UpdateDefinition } from '@temporalio/common';
import { enumOf, intRange, isUuid, struct, Uuid, CountryCode } from '../../domain/codecs/common';
import {
  Campaign,
  CampaignList,
  CampaignRule,
  CampaignRuleList,
  CampaignWithRules,
  CAMPAIGN_CHANNELS,
  CAMPAIGN_STATUSES,
  CommunicationList,
  CreateCampaignRequest,
  CreateRulesRequest,
  TestEventRequest,
  TestEventResult,
  UpdateCampaignStatusRequest,
  UpdateRuleRequest,
  UpdateRuleStatusRequest,
} from '../../domain/campaigns/codecs';
import { assessCampaign } from '../../domain/campaigns/engine';
import { isTerminal } from '../../domain/campaigns/lifecycle';
import { validateCampaignWindow, validateRules } from '../../domain/campaigns/validation';
import { ApiError, decodeOrThrow, FieldError } from '../../domain/errors';
import { newId } from '../../domain/credentials';
import { uuidFromKey } from '../../domain/ids';
import { startLifecycle, updateRetryingUnprocessed, withinSyncWait } from '../lifecycle';
import { findOwnedAccount } from '../../activities/repositories/merchants';
import {
  CAMPAIGNS,
  CampaignDoc,
  campaignResponse,
  COMMUNICATIONS,
  CommunicationDoc,
  communicationResponse,
  findOwnedCampaign,
  findOwnedRule,
  page,
  ruleResponse,
  rulesOf,
} from '../../activities/repositories/campaigns';
import {
  addCampaignRules,
  CAMPAIGN_RULE_MISSING_FAILURE,
  CAMPAIGN_RULE_VALIDATION_FAILURE,
  CAMPAIGN_TRANSITION_FAILURE,
  campaignRecorded,
  campaignWorkflowId,
  setCampaignRuleStatus,
  setCampaignStatus,
  updateCampaignRule,
} from '../../workflows/campaign';
import type { AppContext, AppDeps } from '../context';
import type { ParameterDoc, RouteSpec, RouteTable } from '../routes';
import { resourceSearchAttributes } from '../../domain/search-attributes';

const TAG = 'Campaigns';
const common = { tag: TAG, area: 'campaigns', auth: 'pair' } as const;

const campaignIdParam: ParameterDoc = { name: 'campaign_id', description: 'Campaign id (UUID)', schema: { type: 'string', format: 'uuid' } };
const ruleIdParam: ParameterDoc = { name: 'rule_id', description: 'Rule id (UUID)', schema: { type: 'string', format: 'uuid' } };

const errors = {
  400: { description: 'Invalid UUID, missing required field or invalid query parameter' },
  404: { description: 'The campaign (or rule) does not exist or belongs to another organization' },
  422: {
    description:
      'Validation: unknown rule type, conditional not valid for the rule type, wrong number of values, METADATA rule without metadata_key, end_at not after start_at, or a change of a COMPLETED or CANCELLED campaign',
  },
};

const ListQuery = struct(
  'CampaignListQuery',
  {},
  {
    status: enumOf('CampaignStatus', CAMPAIGN_STATUSES),
    channel: enumOf('CampaignChannel', CAMPAIGN_CHANNELS),
    country: CountryCode,
    account_id: Uuid,
    limit: intRange(1, 100),
    cursor: t.string,
  },
);

const PageQuery = struct('PageQuery', {}, { limit: intRange(1, 100), cursor: t.string });

const pageParams: ParameterDoc[] = [
  { name: 'limit', description: 'Items per page, 1 to 100 (default 20)', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
  { name: 'cursor', description: 'next_cursor of the previous page', schema: { type: 'string' } },
];

/** Query strings arrive as text; limit is a number. */
function decodeQuery<C extends t.Any>(codec: C, query: Record<string, unknown>): t.TypeOf<C> {
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    const single = Array.isArray(value) ? value[value.length - 1] : value;
    input[name] = name === 'limit' && /^-?\d+$/.test(String(single)) ? Number(single) : single;
  }
  return decodeOrThrow(codec, input);
}

function uuidParam(ctx: AppContext, name: string): string {
  const value = String(ctx.params[name]);
  if (!isUuid(value)) {
    throw new ApiError('validation', `${name} must be a UUID (36 characters)`, { fieldErrors: [{ field: name, code: 'INVALID', message: `${name} must be a UUID` }] });
  }
  return value.toLowerCase();
}

const unprocessable = (messages: string | string[], code: string, fieldErrors: FieldError[] = []) => new ApiError('unprocessable', messages, { code, fieldErrors });
const campaignNotFound = () => new ApiError('not_found', 'campaign not found', { code: 'CAMPAIGN_NOT_FOUND' });
const ruleNotFound = () => new ApiError('not_found', 'rule not found', { code: 'RULE_NOT_FOUND' });

export function registerCampaignRoutes(routes: RouteTable, deps: AppDeps): void {
  const { db } = deps;

  async function ownedCampaign(ctx: AppContext): Promise<CampaignDoc> {
    const campaign = await findOwnedCampaign(db, ctx.state.principal!.organizationCode, uuidParam(ctx, 'campaign_id'));
    if (!campaign) throw campaignNotFound();
    return campaign;
  }

  /**
   * Runs an update on the campaign's workflow and turns its failures into API errors:
   * a rejected change is 422, a closed workflow means the campaign reached a terminal status.
   */
  async function update<Ret, Arg>(ctx: AppContext, campaign: CampaignDoc, definition: UpdateDefinition<Ret, [Arg]>, arg: Arg): Promise<Ret> {
    if (isTerminal(campaign.status)) throw terminal(campaign.status);
    // The update id comes from the key, so a retry joins the update instead of running it again.
    const key = ctx.get('x-idempotency-key');
    const updateId = key ? `${definition.name}-${ctx.method}-${ctx.path}-${key}` : undefined;
    try {
      const handle = deps.temporal.workflow.getHandle(campaignWorkflowId(campaign._id));
      return await withinSyncWait(deps, updateRetryingUnprocessed(() => handle.executeUpdate(definition, { args: [arg], updateId })));
    } catch (error) {
      throw await updateError(campaign._id, error);
    }
  }

  function terminal(status: string) {
    return unprocessable(`invalid status transition: the campaign is ${status}, a terminal status`, 'INVALID_STATUS_TRANSITION');
  }

  async function updateError(campaignId: string, error: unknown): Promise<unknown> {
    const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === CAMPAIGN_TRANSITION_FAILURE) return unprocessable(cause.message, 'INVALID_STATUS_TRANSITION');
    if (cause instanceof ApplicationFailure && cause.type === CAMPAIGN_RULE_VALIDATION_FAILURE) {
      return unprocessable(cause.message, 'INVALID_RULE', (cause.details?.[0] as FieldError[] | undefined) ?? []);
    }
    if (cause instanceof ApplicationFailure && cause.type === CAMPAIGN_RULE_MISSING_FAILURE) return ruleNotFound();
    if (error instanceof WorkflowNotFoundError) {
      // The workflow closed between our read and the update: the campaign became terminal.
      const now = await db.collection<CampaignDoc>(CAMPAIGNS).findOne({ _id: campaignId });
      if (now && isTerminal(now.status)) return terminal(now.status);
    }
    return error;
  }

  const add = <B extends t.Any>(spec: Omit<RouteSpec<B>, 'tag' | 'area' | 'auth'>, handler: (ctx: AppContext, body: t.TypeOf<B>) => Promise<void>) =>
    routes.add({ ...common, ...spec } as RouteSpec<B>, handler);

  add(
    {
      method: 'POST', path: '/v1/campaigns', operationId: 'createCampaign', awaitsWorkflow: true,
      summary: 'Create a campaign (status ACTIVE)',
      description: 'organization_code must be the caller\'s organization and account_id one of its accounts (404 otherwise). schedule is the daily sending window in an IANA time zone (end before start spans midnight); duration.end_at (optional) completes the campaign automatically.',
      idempotency: { required: false, format: 'uuid', onDifferentPayload: 'replay' },
      body: CreateCampaignRequest,
      responses: { 201: { description: 'The campaign, ACTIVE', body: Campaign }, ...errors },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      if (body.organization_code.toLowerCase() !== organizationCode.toLowerCase()) {
        throw new ApiError('not_found', 'organization not found', { code: 'ORGANIZATION_NOT_FOUND' });
      }
      const account = await findOwnedAccount(db, organizationCode, body.account_id);
      if (!account) throw new ApiError('not_found', 'account not found', { code: 'ACCOUNT_NOT_FOUND' });
      const windowErrors = validateCampaignWindow(body.schedule, body.duration, new Date());
      if (windowErrors.length) throw unprocessable(windowErrors.map((e) => e.message), 'INVALID_CAMPAIGN', windowErrors);

      // From the key when there is one: a retry, even after the key's lock expired, joins the first campaign.
      const key = ctx.get('x-idempotency-key');
      const id = key ? uuidFromKey('campaign', organizationCode, key) : newId();
      const campaign = await startLifecycle(deps, {
        workflowType: 'campaignWorkflow',
        workflowId: campaignWorkflowId(id),
        update: campaignRecorded,
        fallback: () => findOwnedCampaign(db, organizationCode, id).then((doc) => (doc ? campaignResponse(doc) : null)),
        args: [{
          campaign: {
            id,
            organization_code: organizationCode,
            account_id: account._id,
            name: body.name,
            country: body.country,
            channel: body.channel,
            focus: body.focus ?? null,
            schedule: body.schedule ?? null,
            duration: body.duration ? { start_at: body.duration.start_at, end_at: body.duration.end_at ?? null } : null,
          },
        }],
        searchAttributes: resourceSearchAttributes({ type: 'campaign', id, accountId: account._id, organizationCode, status: 'ACTIVE' }),
      });
      ctx.status = 201;
      ctx.body = campaign;
    },
  );

  add(
    {
      method: 'GET', path: '/v1/campaigns', operationId: 'listCampaigns',
      summary: 'List campaigns, newest first',
      query: [
        { name: 'status', description: 'ACTIVE, PAUSED, COMPLETED or CANCELLED', schema: { type: 'string', enum: [...CAMPAIGN_STATUSES] } },
        { name: 'channel', description: 'WHATSAPP_MESSAGE or PHONE_CALL', schema: { type: 'string', enum: [...CAMPAIGN_CHANNELS] } },
        { name: 'country', description: 'ISO 3166-1 alpha-2', schema: { type: 'string', pattern: '^[A-Z]{2}$' } },
        { name: 'account_id', description: 'Only campaigns of this account (UUID)', schema: { type: 'string', format: 'uuid' } },
        ...pageParams,
      ],
      responses: { 200: { description: 'One page of campaigns (without rules); next_cursor is null on the last page', body: CampaignList }, 400: errors[400] },
    },
    async (ctx) => {
      const query = decodeQuery(ListQuery, ctx.query);
      const filter: Record<string, unknown> = { organization_code: ctx.state.principal!.organizationCode };
      for (const name of ['status', 'channel', 'country', 'account_id'] as const) if (query[name]) filter[name] = name === 'account_id' ? query[name]!.toLowerCase() : query[name];
      const { items, nextCursor } = await page<CampaignDoc>(db, CAMPAIGNS, filter, query.cursor, query.limit ?? 20);
      ctx.body = { data: items.map(campaignResponse), next_cursor: nextCursor };
    },
  );

  add(
    {
      method: 'GET', path: '/v1/campaigns/:campaign_id', operationId: 'getCampaign',
      summary: 'Get a campaign with its rules',
      pathParams: [campaignIdParam],
      responses: { 200: { description: 'The campaign including its rules', body: CampaignWithRules }, 400: errors[400], 404: errors[404] },
    },
    async (ctx) => {
      const campaign = await ownedCampaign(ctx);
      ctx.body = { ...campaignResponse(campaign), rules: (await rulesOf(db, campaign._id)).map(ruleResponse) };
    },
  );

  // The contract's "PATCH on the campaign" and the /status sub-resource are one operation:
  // same body, same workflow update (setCampaignStatus), same answers.
  const statusChange = {
    summary: 'Pause, resume, complete or cancel a campaign',
    awaitsWorkflow: true,
    description:
      'Body {status}: ACTIVE <-> PAUSED; ACTIVE or PAUSED -> COMPLETED (permanent end) or CANCELLED (same as DELETE). ' +
      'The current status again is a no-op 200. COMPLETED and CANCELLED campaigns refuse every change: 422 with details.error_code INVALID_STATUS_TRANSITION. ' +
      'Any other status value is a 400.',
    pathParams: [campaignIdParam],
    body: UpdateCampaignStatusRequest,
    responses: { 200: { description: 'The campaign after the change', body: Campaign }, ...errors },
  };
  const changeStatus = async (ctx: AppContext, body: t.TypeOf<typeof UpdateCampaignStatusRequest>) => {
    ctx.body = await update(ctx, await ownedCampaign(ctx), setCampaignStatus, body.status);
  };

  add({ ...statusChange, method: 'PATCH', path: '/v1/campaigns/:campaign_id', operationId: 'patchCampaign' }, changeStatus);
  add(
    { ...statusChange, method: 'PATCH', path: '/v1/campaigns/:campaign_id/status', operationId: 'updateCampaignStatus', description: `Same as PATCH /v1/campaigns/{campaign_id}. ${statusChange.description}` },
    changeStatus,
  );

  add(
    {
      method: 'DELETE', path: '/v1/campaigns/:campaign_id', operationId: 'cancelCampaign', awaitsWorkflow: true,
      summary: 'Cancel a campaign (status CANCELLED)',
      description: 'The campaign is kept, with status CANCELLED (terminal): no communication is triggered any more, including ones waiting for the daily window. Cancelling a COMPLETED or CANCELLED campaign is a 422.',
      pathParams: [campaignIdParam],
      responses: { 200: { description: 'The cancelled campaign', body: Campaign }, 400: errors[400], 404: errors[404], 422: errors[422] },
    },
    async (ctx) => {
      ctx.body = await update(ctx, await ownedCampaign(ctx), setCampaignStatus, 'CANCELLED');
    },
  );

  add(
    {
      method: 'POST', path: '/v1/campaigns/:campaign_id/rules', operationId: 'createCampaignRules', awaitsWorkflow: true,
      summary: 'Add rules to a campaign (all or nothing)',
      description:
        'Every rule is validated against the rule table before any is stored. AMOUNT_AND_CURRENCY takes the currency as its last value: [amount, currency], [min, max, currency] for BETWEEN. USER_COMMS_PER_DAY takes only values ([daily limit]); UNIQUE_BY_USER takes neither; both read the user_id metadata entry of the payment. New rules are ACTIVE.',
      pathParams: [campaignIdParam],
      idempotency: { required: false, format: 'uuid', onDifferentPayload: 'replay' },
      body: CreateRulesRequest,
      responses: { 201: { description: 'The created rules, in request order', body: CampaignRuleList }, ...errors },
    },
    async (ctx, body) => {
      const campaign = await ownedCampaign(ctx);
      const checked = validateRules(body.rules);
      if (!checked.ok) throw unprocessable(checked.errors.map((e) => e.message), 'INVALID_RULE', checked.errors);
      ctx.status = 201;
      ctx.body = { rules: await update(ctx, campaign, addCampaignRules, checked.rules) };
    },
  );

  async function ownedRule(ctx: AppContext) {
    const rule = await findOwnedRule(db, ctx.state.principal!.organizationCode, uuidParam(ctx, 'rule_id'));
    if (!rule) throw ruleNotFound();
    const campaign = await db.collection<CampaignDoc>(CAMPAIGNS).findOne({ _id: rule.campaign_id });
    if (!campaign) throw ruleNotFound();
    return { rule, campaign };
  }

  add(
    {
      method: 'GET', path: '/v1/rules/:rule_id', operationId: 'getCampaignRule',
      summary: 'Get a campaign rule',
      pathParams: [ruleIdParam],
      responses: { 200: { description: 'The rule', body: CampaignRule }, 400: errors[400], 404: errors[404] },
    },
    async (ctx) => {
      ctx.body = ruleResponse((await ownedRule(ctx)).rule);
    },
  );

  add(
    {
      method: 'PATCH', path: '/v1/rules/:rule_id', operationId: 'updateCampaignRule', awaitsWorkflow: true,
      summary: 'Change a rule\'s type, values, conditional or metadata_key',
      description: 'Send only the fields to change (null clears conditional, values or metadata_key); the merged rule is validated like a new one. Status changes go through PATCH /v1/rules/{rule_id}/status.',
      pathParams: [ruleIdParam],
      body: UpdateRuleRequest,
      responses: { 200: { description: 'The rule after the change', body: CampaignRule }, ...errors },
    },
    async (ctx, body) => {
      if (Object.keys(body).length === 0) {
        throw new ApiError('validation', 'send at least one of rule_type, values, conditional, metadata_key', { fieldErrors: [{ field: '(body)', code: 'REQUIRED', message: 'no field to change' }] });
      }
      const { rule, campaign } = await ownedRule(ctx);
      ctx.body = await update(ctx, campaign, updateCampaignRule, { ruleId: rule._id, changes: body });
    },
  );

  add(
    {
      method: 'PATCH', path: '/v1/rules/:rule_id/status', operationId: 'updateCampaignRuleStatus', awaitsWorkflow: true,
      summary: 'Activate or deactivate a rule',
      description: 'An INACTIVE rule is kept but ignored when declined payments are evaluated.',
      pathParams: [ruleIdParam],
      body: UpdateRuleStatusRequest,
      responses: { 200: { description: 'The rule after the change', body: CampaignRule }, ...errors },
    },
    async (ctx, body) => {
      const { rule, campaign } = await ownedRule(ctx);
      ctx.body = await update(ctx, campaign, setCampaignRuleStatus, { ruleId: rule._id, status: body.status });
    },
  );

  add(
    {
      method: 'POST', path: '/v1/campaigns/:campaign_id/test-events', operationId: 'testCampaignEvent',
      summary: 'Dry-run a sample declined payment against the campaign',
      description:
        'Evaluates the sample (same shape as the declined-payment event payload) against the campaign\'s ACTIVE rules and reports each rule\'s outcome, whether it would trigger, and when the daily window allows sending. Nothing is sent or stored; per-user rate limits are enforced only on real events.',
      pathParams: [campaignIdParam],
      body: TestEventRequest,
      responses: { 200: { description: 'The evaluation', body: TestEventResult }, 400: errors[400], 404: errors[404] },
    },
    async (ctx, body) => {
      const campaign = await ownedCampaign(ctx);
      const at = body.at ? new Date(body.at) : new Date();
      const assessment = assessCampaign(campaign, await rulesOf(db, campaign._id), body, at);
      ctx.body = {
        campaign_id: campaign._id,
        campaign_status: campaign.status,
        would_trigger: assessment.triggers,
        rules: assessment.evaluation.results.map(({ rule, evaluation }) => ({
          rule_id: rule._id,
          rule_type: rule.rule_type,
          conditional: rule.conditional,
          passed: evaluation.passed,
          reason: evaluation.reason,
        })),
        schedule: { in_window: assessment.inWindow, next_window_at: assessment.inWindow ? null : assessment.sendAt.toISOString() },
        duration: { in_period: assessment.inPeriod },
        blocked_by: assessment.blockedBy,
      };
    },
  );

  add(
    {
      method: 'GET', path: '/v1/campaigns/:campaign_id/communications', operationId: 'listCampaignCommunications',
      summary: 'List the communications a campaign sent, newest first',
      description: 'One per declined payment event at most. The recipient phone is stored encrypted; only its last digits are returned.',
      pathParams: [campaignIdParam],
      query: pageParams,
      responses: { 200: { description: 'One page of communications', body: CommunicationList }, 400: errors[400], 404: errors[404] },
    },
    async (ctx) => {
      const query = decodeQuery(PageQuery, ctx.query);
      const campaign = await ownedCampaign(ctx);
      const { items, nextCursor } = await page<CommunicationDoc>(db, COMMUNICATIONS, { campaign_id: campaign._id }, query.cursor, query.limit ?? 20);
      ctx.body = { data: items.map(communicationResponse), next_cursor: nextCursor };
    },
  );
}
