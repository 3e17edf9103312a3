import assert from 'node:assert/strict';
import { Worker } from '@temporalio/worker';
import { loadHistoryFixtures } from '../support/histories';

const WORKFLOWS_PATH = require.resolve('../../workflows');

describe('workflow histories replay against the current workflow code', function () {
  this.timeout(180_000);

  it('replays every recorded history of every lifecycle without nondeterminism', async () => {
    const fixtures = loadHistoryFixtures();
    const types = new Set(fixtures.map((f) => f.workflowType));
    for (const type of ['paymentWorkflow', 'subscriptionWorkflow', 'dryRunPairWorkflow', 'splitTransferWorkflow', 'campaignWorkflow']) {
      assert.ok(types.has(type), `no recorded history of ${type} (npm run record:histories)`);
    }
    const failures: string[] = [];
    let replayed = 0;
    const results = Worker.runReplayHistories(
      { workflowsPath: WORKFLOWS_PATH, replayName: 'fixtures' },
      fixtures.map((f) => ({ workflowId: f.workflowId, history: f.history })),
    );
    for await (const result of results) {
      replayed++;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    assert.equal(replayed, fixtures.length);
    assert.deepEqual(failures, []);
  });
});
