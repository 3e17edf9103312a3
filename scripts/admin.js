#!/usr/bin/env node
'use strict';
/** `npm run --silent admin -- create-merchant --name NAME`: see api/admin.ts. */
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { ensureDependencies, ensureBuild, ROOT } = require('./lib/prepare');
const { withPrivateUmask } = require('./lib/infra');

ensureDependencies();
ensureBuild();
// It may create DATA_DIR and the dev keyring: private to this user.
const result = withPrivateUmask(() => spawnSync(process.execPath, [path.join(ROOT, 'dist', 'api', 'admin.js'), ...process.argv.slice(2)], { stdio: 'inherit' }));
process.exit(result.status ?? 1);
