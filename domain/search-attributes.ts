/**
 * The custom search attributes of a resource's workflow, built in one place so every lifecycle
 * carries the same ones. ResourceId is the resource's public id (what the API answers as `id`),
 * so an operator finds any resource's workflow with `ResourceId = '<id>'` whatever its workflow
 * id looks like. Registered by the embedded dev server (scripts/lib/infra.js) and listed in
 * activities/runtime/temporal.ts, temporal-dev.yml and the README.
 */

export interface ResourceSearch {
  /** ResourceType: payment, banking_transfer, report, ... */
  type: string;
  /** ResourceId: the public id. */
  id: string;
  organizationCode?: string | null;
  accountId?: string | null;
  merchantReference?: string | null;
  status?: string | null;
}

export function resourceSearchAttributes(resource: ResourceSearch): Record<string, string[]> {
  return {
    ResourceType: [resource.type],
    ResourceId: [resource.id],
    ...(resource.organizationCode ? { OrganizationCode: [resource.organizationCode] } : {}),
    ...(resource.accountId ? { AccountId: [resource.accountId] } : {}),
    ...(resource.merchantReference ? { MerchantReference: [resource.merchantReference] } : {}),
    ...(resource.status ? { ResourceStatus: [resource.status] } : {}),
  };
}
