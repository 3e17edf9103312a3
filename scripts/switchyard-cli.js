#!/usr/bin/env node
'use strict';
/**
 * The repository's `switchyard` bin (`npx switchyard ...` in a checkout): the same command
 * line as the @switchyard/cli package (packages/cli), which holds the code.
 */
const cli = require('../packages/cli/lib/cli');

if (require.main === module) cli.run();

module.exports = cli;
