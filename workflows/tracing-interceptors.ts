/**
 * Workflow interceptors for tracing, bundled into the workflow sandbox only by a worker that
 * traces (activities/runtime/tracing.ts): Temporal's OpenTelemetry interceptors, except for
 * the polling workflows. Their rounds are no request, and traced they would make one trace of
 * thousands of spans per run; their activities then run untraced too (no trace header).
 */
import { interceptors as openTelemetryInterceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors';
import { workflowInfo, WorkflowInterceptors } from '@temporalio/workflow';

export const UNTRACED_WORKFLOW_TYPES: readonly string[] = ['housekeepingWorkflow', 'campaignTriggerWorkflow'];

// Called once per workflow run, when workflowInfo() is already set: the choice is deterministic.
export const interceptors = (): WorkflowInterceptors => (UNTRACED_WORKFLOW_TYPES.includes(workflowInfo().workflowType) ? {} : openTelemetryInterceptors());
