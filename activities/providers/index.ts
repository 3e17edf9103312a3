/**
 * Connector registry: provider_id -> connector. Real providers are added here; a catalogue
 * provider without a connector can be configured but is never routed to.
 */
import type { PaymentFlow } from '../../domain/payments/methods';
import type { ProviderConnector } from './connector';
import { sandboxConnector } from './sandbox';
import { stripeConnector } from './stripe';
import { adyenConnector } from './adyen';

const CONNECTORS: Record<string, ProviderConnector> = { SANDBOX: sandboxConnector, STRIPE: stripeConnector, ADYEN: adyenConnector };

/** Providers Switchyard has a connector for (the catalogue's other entries are configuration only). */
export const PROVIDERS_WITH_CONNECTOR: readonly string[] = Object.keys(CONNECTORS);

export function connectorFor(providerId: string): ProviderConnector {
  const connector = CONNECTORS[providerId];
  if (!connector) throw new Error(`no connector for provider ${providerId}`);
  return connector;
}

/** Payment flows Switchyard can drive through this provider ([] without a connector). */
export function paymentFlowsOf(providerId: string): readonly PaymentFlow[] {
  return CONNECTORS[providerId]?.flows ?? [];
}

/**
 * Base URL of a provider's API: the sandbox's from SANDBOX_GATEWAY_URL, Stripe's from
 * STRIPE_API_URL, Adyen's from ADYEN_API_URL (null: the SDK's own address).
 */
export function baseUrlFor(providerId: string, config: { sandboxGatewayUrl: string; stripeApiUrl: string | null; adyenApiUrl?: string | null }): string | null {
  if (providerId === 'SANDBOX') return config.sandboxGatewayUrl;
  if (providerId === 'STRIPE') return config.stripeApiUrl;
  if (providerId === 'ADYEN') return config.adyenApiUrl ?? null;
  throw new Error(`no base URL for provider ${providerId}`);
}
