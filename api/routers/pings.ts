/**
 * Connectivity check for integrators: POST /v1/pings runs a one-step lifecycle through the
 * worker and answers with its result, proving credentials, API, Temporal and MongoDB end to
 * end; GET /v1/pings/:ping_id reads it back.
 */
import { findByIdWithin } from '../../activities/runtime/mongo';
import { withinSyncWait } from '../lifecycle';
import { uuidFromKey } from '../../domain/ids';
import * as t from 'io-ts';
import { boundedString, struct, Timestamp, Uuid } from '../../domain/codecs/common';
import { ApiError } from '../../domain/errors';
import type { AppDeps } from '../context';
import type { RouteTable } from '../routes';

const PingRequest = struct('PingRequest', { message: boundedString(1, 255) }, {});
const Ping = t.type({ id: Uuid, message: t.string, workflow_id: t.string, created_at: Timestamp }, 'Ping');

export function registerPingRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.add(
    {
      method: 'POST', path: '/v1/pings', operationId: 'createPing', awaitsWorkflow: true, tag: 'Operations', area: 'default', auth: 'pair',
      summary: 'Run a connectivity check through the whole stack',
      idempotency: { required: false, format: 'max64', onDifferentPayload: 'replay' },
      body: PingRequest,
      responses: { 201: { description: 'The ping lifecycle completed', body: Ping } },
    },
    async (ctx, body) => {
      const organizationCode = ctx.state.principal!.organizationCode;
      // With a key, a retry joins the first ping's workflow instead of starting another.
      const key = ctx.get('x-idempotency-key');
      const workflowId = `ping-${key ? uuidFromKey('ping', organizationCode, key) : ctx.state.requestId}`;
      const result = await withinSyncWait(deps, deps.temporal.workflow.execute('pingWorkflow', {
        taskQueue: deps.config.taskQueue,
        workflowId,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [{ organizationCode, message: body.message }],
        workflowExecutionTimeout: '30 seconds',
        searchAttributes: { ResourceType: ['ping'], OrganizationCode: [organizationCode] },
      }) as Promise<{ pingId: string; echoed: string }>);
      const ping = await deps.db.collection('pings').findOne({ _id: result.pingId as never });
      ctx.status = 201;
      ctx.body = { id: result.pingId, message: result.echoed, workflow_id: workflowId, created_at: (ping?.at as Date).toISOString() };
    },
  );

  routes.add(
    {
      method: 'GET', path: '/v1/pings/:ping_id', operationId: 'getPing', tag: 'Operations', area: 'default', auth: 'pair',
      summary: 'Read a connectivity check',
      pathParams: [{ name: 'ping_id', description: 'id returned by POST /v1/pings', schema: { type: 'string', format: 'uuid' } }],
      responses: { 200: { description: 'The ping', body: t.type({ id: Uuid, created_at: Timestamp }) }, 404: { description: 'No such ping for this organization' } },
    },
    async (ctx) => {
      const ping = await findByIdWithin(deps.db.collection('pings'), ctx.params.ping_id as never, { organization_code: ctx.state.principal!.organizationCode });
      if (!ping) throw new ApiError('not_found', 'ping not found');
      ctx.body = { id: ping._id, created_at: (ping.at as Date).toISOString() };
    },
  );
}
