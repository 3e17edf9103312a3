#!/usr/bin/env node
'use strict';
/**
 * `npm run score:dry-run [-- --details]`: scores the dry-run corpus (test/fixtures/dry-run-corpus)
 * with the compiled pipeline (run `npm run build` first), per provider, with profiles and in
 * generic mode (API hosts known, then hidden: blind): recall on injected defects and the
 * false-finding rate on clean exchanges; the main corpus, then the held-out one (holdout/).
 */
const path = require('node:path');

const compiled = path.join(__dirname, '..', 'dist', 'test', 'support', 'dry-run-corpus.js');
let scorer;
try {
  scorer = require(compiled);
} catch (error) {
  console.error(`cannot load ${compiled}: run npm run build first (${error.message})`);
  process.exit(2);
}
const details = process.argv.includes('--details');
console.log('main corpus');
console.log(scorer.formatFigures(scorer.scoreCorpus(scorer.loadCorpus()), details));
console.log('\nheld-out corpus');
console.log(scorer.formatFigures(scorer.scoreCorpus(scorer.loadHoldout()), details));
