/**
 * Root hooks: stop the shared stack after the suite and print a plain closing tally. With
 * RECORD_HISTORIES=<release> (`npm run record:histories`), first keep the workflow histories
 * the suite produced as replay fixtures.
 */
import { getStack, stopStack } from './stack';
import { recordHistories } from './histories';
import { reportedDrifts } from './openapi-contract';

let passed = 0;
let failed = 0;

export const mochaHooks = {
  afterEach(this: Mocha.Context) {
    const state = this.currentTest?.state;
    if (state === 'passed') passed++;
    else if (state === 'failed') failed++;
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(120_000);
    if (process.env.RECORD_HISTORIES) {
      const stack = await getStack();
      const written = await recordHistories(stack.temporal, stack.keyring, process.env.RECORD_HISTORIES);
      process.stdout.write(`recorded ${written.length} workflow histories:\n${written.map((f) => `  ${f}`).join('\n')}\n`);
    }
    await stopStack();
    const drifts = reportedDrifts();
    if (drifts.size) process.stdout.write(`\nanswers outside the OpenAPI document:\n${[...drifts].map(([drift, n]) => `  ${n} x ${drift}`).join('\n')}\n`);
    process.on('exit', (code) => {
      // mocha's own summary is above; this line is the runner-independent tally.
      process.stdout.write(`\nmocha: ${passed} passed, ${failed} failed\n`);
      if (code === 0 && failed > 0) process.exitCode = 1;
    });
  },
};
