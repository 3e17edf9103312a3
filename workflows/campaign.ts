/**
 * One workflow per campaign (id `campaign-<campaign_id>`): every change of the campaign
 * and of its rules happens here, through updates, so the API answers synchronously with
 * the result or the validation failure, and the history is the campaign's audit log.
 *
 * The workflow completes the campaign by itself at duration.end_at (a durable timer) and
 * closes when the campaign reaches COMPLETED or CANCELLED. Updates run one at a time.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineUpdate,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import { serialQueue } from './serial';
import type { Activities } from '../activities';
import type { CampaignRecordInput } from '../activities/campaigns';
import type { Campaign, CampaignRule, CampaignStatus, RuleDefinition, RuleInput, RuleStatus } from '../domain/campaigns/codecs';
import { checkCampaignTransition, isTerminal } from '../domain/campaigns/lifecycle';
import { validateRule } from '../domain/campaigns/validation';

const { recordCampaign, writeCampaignStatus, recordCampaignRules, loadCampaignRule, writeCampaignRule } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumInterval: '10 seconds' },
});

/** Failure types the API maps to 422 (transition, rule validation) and 404 (missing rule). */
export const CAMPAIGN_TRANSITION_FAILURE = 'CampaignStatusTransition';
export const CAMPAIGN_RULE_VALIDATION_FAILURE = 'CampaignRuleValidation';
export const CAMPAIGN_RULE_MISSING_FAILURE = 'CampaignRuleMissing';

export const campaignRecorded = defineUpdate<Campaign>('campaignRecorded');
export const setCampaignStatus = defineUpdate<Campaign, [CampaignStatus]>('setCampaignStatus');
export const addCampaignRules = defineUpdate<CampaignRule[], [RuleDefinition[]]>('addCampaignRules');
export const updateCampaignRule = defineUpdate<CampaignRule, [{ ruleId: string; changes: Partial<RuleInput> }]>('updateCampaignRule');
export const setCampaignRuleStatus = defineUpdate<CampaignRule, [{ ruleId: string; status: RuleStatus }]>('setCampaignRuleStatus');
export const campaignStatusQuery = defineQuery<CampaignStatus | null>('campaignStatus');

export interface CampaignWorkflowInput {
  campaign: CampaignRecordInput;
  /** Carried across continue-as-new. */
  recorded?: Campaign;
}

export function campaignWorkflowId(campaignId: string): string {
  return `campaign-${campaignId}`;
}

function rejected(message: string, type = CAMPAIGN_TRANSITION_FAILURE, details?: unknown): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, details: details === undefined ? [] : [details] });
}

export async function campaignWorkflow(input: CampaignWorkflowInput): Promise<CampaignStatus> {
  let campaign: Campaign | undefined = input.recorded;
  const endAt = input.campaign.duration?.end_at ? Date.parse(input.campaign.duration.end_at) : null;

  // Updates run one after another: a later one sees what the earlier one wrote.
  const serially = serialQueue();
  const requireOpen = () => {
    if (campaign && isTerminal(campaign.status)) throw rejected(`invalid status transition: the campaign is ${campaign.status}, a terminal status`);
  };
  const changeStatus = async (status: CampaignStatus) => {
    const check = checkCampaignTransition(campaign!.status, status);
    if (!check.ok) throw rejected(check.message);
    if (check.changed) {
      campaign = await writeCampaignStatus({ campaignId: input.campaign.id, status });
      upsertSearchAttributes({ ResourceStatus: [status] });
    }
    return campaign!;
  };

  setHandler(campaignStatusQuery, () => campaign?.status ?? null);
  setHandler(campaignRecorded, async () => {
    await condition(() => campaign !== undefined);
    return campaign!;
  });
  setHandler(setCampaignStatus, (status) => serially(() => changeStatus(status)), {
    validator: (status) => {
      if (campaign) {
        const check = checkCampaignTransition(campaign.status, status);
        if (!check.ok) throw rejected(check.message);
      }
    },
  });
  setHandler(
    addCampaignRules,
    (rules: RuleDefinition[]) =>
      serially(async () => {
        requireOpen();
        return recordCampaignRules({ campaignId: input.campaign.id, rules: rules.map((rule: RuleDefinition) => ({ ...rule, id: uuid4() })) });
      }),
    { validator: (..._args: unknown[]) => requireOpen() },
  );
  setHandler(
    updateCampaignRule,
    ({ ruleId, changes }: { ruleId: string; changes: Partial<RuleInput> }) =>
      serially(async () => {
        requireOpen();
        const current = await loadCampaignRule({ ruleId });
        if (!current) throw ApplicationFailure.create({ type: CAMPAIGN_RULE_MISSING_FAILURE, message: 'rule not found', nonRetryable: true });
        // The merged rule must satisfy the rule table as a whole.
        const merged: RuleInput = {
          rule_type: changes.rule_type ?? current.rule_type,
          values: changes.values !== undefined ? changes.values : current.values,
          conditional: changes.conditional !== undefined ? changes.conditional : current.conditional,
          metadata_key: changes.metadata_key !== undefined ? changes.metadata_key : current.metadata_key,
        };
        const checked = validateRule(merged);
        if (!checked.ok) throw rejected(checked.errors.map((e) => e.message).join('; '), CAMPAIGN_RULE_VALIDATION_FAILURE, checked.errors);
        return writeCampaignRule({ ruleId, definition: checked.rule });
      }),
    { validator: (..._args: unknown[]) => requireOpen() },
  );
  setHandler(
    setCampaignRuleStatus,
    ({ ruleId, status }: { ruleId: string; status: RuleStatus }) =>
      serially(async () => {
        requireOpen();
        return writeCampaignRule({ ruleId, status });
      }),
    { validator: (..._args: unknown[]) => requireOpen() },
  );

  campaign ??= await recordCampaign(input.campaign);

  while (!isTerminal(campaign.status)) {
    const reachedEnd = async () => {
      const remaining = endAt === null ? null : endAt - Date.now();
      if (remaining === null) {
        await condition(() => isTerminal(campaign!.status) || workflowInfo().continueAsNewSuggested);
        return false;
      }
      return remaining <= 0 || !(await condition(() => isTerminal(campaign!.status) || workflowInfo().continueAsNewSuggested, remaining));
    };
    if (await reachedEnd()) {
      // duration.end_at: ACTIVE or PAUSED -> COMPLETED.
      await serially(() => (isTerminal(campaign!.status) ? Promise.resolve(campaign!) : changeStatus('COMPLETED')));
      break;
    }
    if (!isTerminal(campaign.status) && workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof campaignWorkflow>({ campaign: input.campaign, recorded: campaign });
    }
  }
  await condition(allHandlersFinished);
  return campaign.status;
}
