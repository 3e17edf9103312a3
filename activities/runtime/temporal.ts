/**
 * Temporal connection settings shared by the API (client) and the worker. Connection
 * details come from @temporalio/envconfig (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY, TEMPORAL_TLS*, TEMPORAL_PROFILE / config file), so Temporal Cloud and
 * self-hosted clusters need no code change.
 */
import { Client, ClientInterceptors, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { Keyring } from '../../domain/crypto';
import { Config } from './config';
import { EncryptionCodec } from './payload-codec';
import { tracingClientInterceptors } from './tracing';

/** Custom search attributes every lifecycle sets; registered by the embedded dev server. */
export const SEARCH_ATTRIBUTES = {
  AccountId: 'Keyword',
  MerchantReference: 'Keyword',
  ResourceType: 'Keyword',
  OrganizationCode: 'Keyword',
  ResourceStatus: 'Keyword',
  ResourceId: 'Keyword',
} as const;

export function temporalConnectOptions(config: Config) {
  const fromEnv = loadClientConnectConfig();
  return {
    namespace: fromEnv.namespace ?? config.temporalNamespace,
    connectionOptions: { ...fromEnv.connectionOptions, address: fromEnv.connectionOptions.address ?? config.temporalAddress },
  };
}

export function dataConverterFor(keyring: Keyring): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(keyring)] };
}

export async function connectTemporalClient(config: Config, keyring: Keyring, interceptors?: ClientInterceptors): Promise<Client> {
  const { namespace, connectionOptions } = temporalConnectOptions(config);
  const connection = await Connection.connect({ ...connectionOptions, connectTimeout: '5s' } as Parameters<typeof Connection.connect>[0]);
  return new Client({ connection, namespace, dataConverter: dataConverterFor(keyring), interceptors });
}

/**
 * Calls `onStart(workflowType)` for every workflow start the client makes, however it is made;
 * with tracing on, the OpenTelemetry interceptor comes first so its span covers the call and
 * its context travels to the workflow in the Temporal headers.
 */
export function workflowStartInterceptors(onStart: (workflowType: string) => void): ClientInterceptors {
  return {
    workflow: [
      ...tracingClientInterceptors(),
      {
        async start(input, next) {
          onStart(input.workflowType);
          return next(input);
        },
        async startWithDetails(input, next) {
          onStart(input.workflowType);
          return next(input);
        },
        async signalWithStart(input, next) {
          onStart(input.workflowType);
          return next(input);
        },
        async startUpdateWithStart(input, next) {
          onStart(input.workflowType);
          return next(input);
        },
      },
    ],
  };
}
