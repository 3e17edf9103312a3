/**
 * Root hooks: stop the shared stack after the suite and print a plain closing tally.
 */
import { stopStack } from './stack';

let passed = 0;
let failed = 0;

export const mochaHooks = {
  afterEach(this: Mocha.Context) {
    const state = this.currentTest?.state;
    if (state === 'passed') passed++;
    else if (state === 'failed') failed++;
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopStack();
    process.on('exit', (code) => {
      // mocha's own summary is above; this line is the runner-independent tally.
      process.stdout.write(`\nmocha: ${passed} passed, ${failed} failed\n`);
      if (code === 0 && failed > 0) process.exitCode = 1;
    });
  },
};
