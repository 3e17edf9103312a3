#!/usr/bin/env node
'use strict';
/**
 * `npm run docs:catalogue`: rewrites the README's "Provider catalogue" section (between its
 * markers) from domain/providers/catalogue.ts. A unit test fails while the README is stale.
 */
const fs = require('node:fs');
const path = require('node:path');
const { ensureBuild, log, ROOT } = require('./lib/prepare');

ensureBuild();
const { withCatalogueSection } = require(path.join(ROOT, 'dist', 'domain', 'providers', 'catalogue-doc.js'));
const file = path.join(ROOT, 'README.md');
const before = fs.readFileSync(file, 'utf8');
const after = withCatalogueSection(before);
if (after === null) {
  log('README.md has no provider-catalogue markers; add the start and end markers where the section belongs');
  process.exit(1);
}
if (after === before) {
  log('README.md provider catalogue is up to date');
} else {
  fs.writeFileSync(file, after);
  log('README.md provider catalogue rewritten');
}
