#!/usr/bin/env node
'use strict';
/**
 * `npm run score:dry-run [-- --details]`: scores the dry-run corpus (test/fixtures/dry-run-corpus)
 * with the compiled pipeline (run `npm run build` first), per provider, with profiles and in
 * generic mode: recall on injected defects and the false-finding rate on clean exchanges.
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
const figures = scorer.scoreCorpus();
console.log(scorer.formatFigures(figures, process.argv.includes('--details')));
