/**
 * Prometheus metrics served at GET /metrics.
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  workflowStarts: Counter<'workflow_type'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'switchyard_http_request_duration_seconds',
      help: 'HTTP request latency by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    workflowStarts: new Counter({
      name: 'switchyard_workflow_starts_total',
      help: 'Workflows started by the API, by workflow type',
      labelNames: ['workflow_type'],
      registers: [registry],
    }),
  };
}
