/**
 * OpenTelemetry tracing for the API and worker processes: http, Koa and MongoDB spans, the
 * Temporal client, workflow and activity spans (context carried in Temporal headers), and
 * one span per provider call (activities/providers/connector.ts).
 *
 * On only when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). Otherwise no SDK module is even loaded: the code's
 * spans go to the no-op tracer of @opentelemetry/api.
 *
 * startTracing() must run before http, koa and mongodb are first required: instrumentations
 * patch modules as they load. The entry points call it before their other imports; tests
 * that start the API or worker in-process never call it.
 *
 * The SDK is the 2.x line (the 3.x line needs Node 22). Its BatchSpanProcessor and sampler no
 * longer read the environment themselves, so the OTEL_BSP_* and OTEL_TRACES_SAMPLER variables
 * are read here.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { Sampler, SpanProcessor, ReadableSpan } from '@opentelemetry/sdk-trace-node';
import type { Resource } from '@opentelemetry/resources';
import type { Instrumentation } from '@opentelemetry/instrumentation';

export type ServiceKind = 'api' | 'worker';

export interface Tracing {
  serviceName: string;
  /** Flushes spans still buffered; call before the process exits. */
  shutdown(): Promise<void>;
}

interface ActiveTracing extends Tracing {
  processor: SpanProcessor;
  resource: Resource;
}

let active: ActiveTracing | undefined;

/** True when an OTLP endpoint is configured and the SDK is not disabled. */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  if ((env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** The tracing this process started, if any. */
export function activeTracing(): Tracing | undefined {
  return active;
}

/**
 * Starts the SDK for this process when an OTLP endpoint is configured; returns undefined (and
 * loads nothing) otherwise. Calling it twice returns the first instance.
 */
export function startTracing(kind: ServiceKind, env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  if (active) return active;
  if (!tracingConfigured(env)) return undefined;

  // Loaded here, not at the top, so that a process without tracing never loads the SDK.
  const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { MongoDBInstrumentation } = require('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');

  const defaultName = kind === 'api' ? 'switchyard-api' : 'switchyard-worker';
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over our defaults.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': defaultName, 'service.version': packageVersion() }))
    .merge(detectResources({ detectors: [envDetector] }));
  const processor = new BatchSpanProcessor(createExporter(env), {
    scheduledDelayMillis: positiveInt(env, 'OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: positiveInt(env, 'OTEL_BSP_EXPORT_TIMEOUT'),
    maxQueueSize: positiveInt(env, 'OTEL_BSP_MAX_QUEUE_SIZE'),
    maxExportBatchSize: positiveInt(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor], sampler: samplerFromEnv(env) });
  // AsyncLocalStorage context and W3C trace context (+ baggage) propagation.
  provider.register();

  const instrumentations: Instrumentation[] = [
    new HttpInstrumentation({
      // Scrapes and probes are not requests worth a trace.
      ignoreIncomingRequestHook: (request) => /^\/(metrics|healthz|readyz)\b/.test(request.url ?? ''),
      // Report download links carry their signature in the query string.
      redactedQueryParamsServer: ['signature', 'sig', 'Signature', 'token', 'access_token', 'X-Amz-Signature', 'X-Goog-Signature', 'AWSAccessKeyId'],
      // Outgoing calls outside any request or activity (none expected) would be orphan traces.
      requireParentforOutgoingSpans: true,
    }),
    new MongoDBInstrumentation({
      // Never the values of a command: filters and documents can hold personal data.
      enhancedDatabaseReporting: false,
      dbStatementSerializer: (command) => JSON.stringify(shapeOnly(command)),
      // Driver housekeeping (monitoring, pool) outside a request or activity is noise.
      requireParentSpan: true,
    }),
  ];
  if (kind === 'api') {
    const { KoaInstrumentation, KoaLayerType } = require('@opentelemetry/instrumentation-koa') as typeof import('@opentelemetry/instrumentation-koa');
    // Router layers name the route (also on the HTTP span); the app-wide middleware spans are
    // anonymous wrappers around the whole request, cost CPU and say nothing.
    instrumentations.push(new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }));
  }
  registerInstrumentations({ tracerProvider: provider, instrumentations });

  const serviceName = String(resource.attributes['service.name'] ?? defaultName);
  active = {
    serviceName,
    processor,
    resource,
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
  return active;
}

/**
 * Temporal client interceptors that open a span per workflow start, signal, query and update
 * and put its context in the Temporal headers; none when tracing is off.
 */
export function tracingClientInterceptors(): WorkflowClientInterceptor[] {
  if (!active) return [];
  const { OpenTelemetryWorkflowClientInterceptor } = require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  return [new OpenTelemetryWorkflowClientInterceptor()];
}

/**
 * Worker options for tracing: workflow interceptors (bundled into the workflow sandbox; their
 * spans leave the sandbox through a sink), activity interceptors and the sink. Empty when off.
 */
export function tracingWorkerOptions(): { interceptors?: WorkerInterceptors; sinks?: InjectedSinks<any> } {
  if (!active) return {};
  const otel = require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  const { processor, resource } = active;
  return {
    interceptors: {
      workflowModules: [require.resolve('../../workflows/tracing-interceptors')],
      activity: [
        (ctx) => {
          const traced = new otel.OpenTelemetryActivityInboundInterceptor(ctx);
          return {
            // An activity whose workflow is untraced (the polling ones) would start a trace of its own per call.
            inbound: { execute: (input, next) => (TRACE_HEADER in input.headers ? traced.execute(input, next) : next(input)) },
            outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx),
          };
        },
      ],
    },
    sinks: { exporter: otel.makeWorkflowExporter(workflowSpanAdapter(processor) as never, resource as never) },
  };
}

/** Where Temporal's OpenTelemetry interceptors carry the span context (not exported by the package). */
const TRACE_HEADER = '_tracer-data';

/** Workflow info the sink adds to every workflow span that is worth keeping; memo, search attributes and the rest are not. */
const WORKFLOW_SPAN_ATTRIBUTES = new Set(['workflowId', 'runId', 'workflowType', 'namespace', 'taskQueue', 'attempt']);

/**
 * Temporal's workflow interceptors (1.24) build spans inside the sandbox with the SDK 1.x
 * field names (parentSpanId, instrumentationLibrary); the 2.x exporters read parentSpanContext
 * and instrumentationScope. Without this, workflow spans would lose their parent and scope.
 */
function workflowSpanAdapter(next: SpanProcessor) {
  return {
    onStart() {},
    onEnd(span: ReadableSpan & { parentSpanId?: string; instrumentationLibrary?: ReadableSpan['instrumentationScope'] }) {
      const own = span.spanContext();
      const parentSpanContext =
        span.parentSpanContext ?? (span.parentSpanId ? { traceId: own.traceId, spanId: span.parentSpanId, traceFlags: own.traceFlags } : undefined);
      const instrumentationScope = span.instrumentationScope ?? span.instrumentationLibrary ?? { name: '@temporalio/interceptor-workflow' };
      // The sink copies the whole WorkflowInfo into the attributes (memo and search attributes
      // included); keep the identifiers and the interceptors' own temporal* attributes.
      const attributes = Object.fromEntries(
        Object.entries(span.attributes).filter(([key]) => WORKFLOW_SPAN_ATTRIBUTES.has(key) || key.startsWith('temporal') || key === 'run_id'),
      );
      next.onEnd({ ...span, attributes, spanContext: () => own, parentSpanContext, instrumentationScope });
    },
    forceFlush: () => next.forceFlush(),
    // The provider shuts the shared processor down.
    shutdown: async () => undefined,
  };
}

/** OTLP over HTTP, protobuf by default, JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json. */
function createExporter(env: NodeJS.ProcessEnv) {
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim();
  // Endpoint, headers, timeout and compression come from the standard OTEL_EXPORTER_OTLP_* variables.
  if (protocol === 'http/json') {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter();
  }
  if (protocol === 'http/protobuf') {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
    return new OTLPTraceExporter();
  }
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json, got "${protocol}" (gRPC is not supported)`);
}

/** The standard OTEL_TRACES_SAMPLER values; parent-based always-on by default. */
function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const name = (env.OTEL_TRACES_SAMPLER || 'parentbased_always_on').trim().toLowerCase();
  const arg = env.OTEL_TRACES_SAMPLER_ARG;
  const ratio = arg === undefined || arg === '' ? 1 : Number(arg);
  if (!(ratio >= 0 && ratio <= 1)) throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a number between 0 and 1, got "${arg}"`);
  switch (name) {
    case 'always_on': return new AlwaysOnSampler();
    case 'always_off': return new AlwaysOffSampler();
    case 'traceidratio': return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on': return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default: throw new Error(`OTEL_TRACES_SAMPLER "${name}" is not supported`);
  }
}

function positiveInt(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/**
 * A MongoDB command with every value replaced by "?": the statement shows which fields a
 * query touches, never what it looked for or wrote.
 */
export function shapeOnly(value: unknown, depth = 0): unknown {
  if (depth > 6) return '?';
  if (Array.isArray(value)) {
    // Lists of values ($in, documents) collapse to one "?"; pipelines and $and keep their shape.
    if (value.every((v) => v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype)) return value.length ? ['?'] : [];
    return value.slice(0, 10).map((v) => shapeOnly(v, depth + 1));
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, shapeOnly(v, depth + 1)]));
  }
  return '?';
}

function packageVersion(): string {
  try {
    return (require('../../../package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
