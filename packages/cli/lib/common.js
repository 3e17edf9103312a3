'use strict';
/**
 * What every command shares: argument parsing, configuration (flags or environment), exit
 * codes, and calls to the Switchyard API with the key pair through the typed client
 * (@switchyard/client, bundled in lib/vendor/ with its one runtime module). No dependencies.
 */

const { createSwitchyardClient } = require('./vendor/switchyard-client');

const EXIT = { ok: 0, verdict: 1, usage: 2, api: 3 };

class CliError extends Error {
  constructor(message, code) {
    super(message);
    this.exitCode = code;
  }
}

const BOOLEAN_FLAGS = new Set(['help', 'h', 'includeTransactions', 'includeRawResponse', 'fromStart', 'json']);

/** `--name value`, `--name=value`, boolean `--flag`; positionals kept in order. */
function parseArgs(argv) {
  const options = {};
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h') options.help = true;
    else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = (eq > 0 ? arg.slice(2, eq) : arg.slice(2)).replace(/-([a-z])/g, (_, c) => c.toUpperCase());
      if (BOOLEAN_FLAGS.has(name) && eq < 0) {
        options[name] = true;
        continue;
      }
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new CliError(`${arg} needs a value`, EXIT.usage);
      options[name] = value;
    } else positional.push(arg);
  }
  return { options, positional };
}

/**
 * Where Switchyard is and the key pair: --url / --public-key / --secret-key, else
 * SWITCHYARD_URL / SWITCHYARD_PUBLIC_KEY / SWITCHYARD_SECRET_KEY (the older names
 * SWITCHYARD_PUBLIC_API_KEY / SWITCHYARD_PRIVATE_SECRET_KEY are read too).
 */
function resolveConfig(options, env = process.env) {
  options.url = (options.url || env.SWITCHYARD_URL || 'http://127.0.0.1:3000').replace(/\/+$/, '');
  options.publicKey = options.publicKey || env.SWITCHYARD_PUBLIC_KEY || env.SWITCHYARD_PUBLIC_API_KEY;
  options.secretKey = options.secretKey || env.SWITCHYARD_SECRET_KEY || env.SWITCHYARD_PRIVATE_SECRET_KEY;
  if (!options.publicKey || !options.secretKey) {
    throw new CliError('credentials missing: set SWITCHYARD_PUBLIC_KEY and SWITCHYARD_SECRET_KEY (or pass --public-key / --secret-key)', EXIT.usage);
  }
  return options;
}

/** The typed client (@switchyard/client, bundled in lib/vendor/) for these options, made once. */
function clientOf(options) {
  if (!options.client) {
    options.client = createSwitchyardClient({ baseUrl: options.url, publicKey: options.publicKey, secretKey: options.secretKey, headers: { 'user-agent': 'switchyard-cli' } });
  }
  return options.client;
}

/**
 * One API call through @switchyard/client: `template` is the operation's OpenAPI path
 * (`/v1/payments/{payment_id}`) and `init` its openapi-fetch options (`params.path`,
 * `params.query`, `params.header`, `body`). Answers the JSON body; a non-2xx answer becomes a
 * CliError naming the code, the messages and the doc_url.
 */
async function api(options, method, template, init = {}) {
  const shown = template.replace(/\{([^}]+)\}/g, (whole, name) => (init.params && init.params.path && init.params.path[name] !== undefined ? init.params.path[name] : whole));
  let result;
  try {
    result = await clientOf(options)[method](template, init);
  } catch (error) {
    throw new CliError(`cannot reach Switchyard at ${options.url}: ${(error.cause && error.cause.message) || error.message}`, EXIT.api);
  }
  const { data, error, response } = result;
  if (response.ok) return data === undefined ? null : data;
  const detail =
    error && typeof error === 'object'
      ? `${error.details && error.details.error_code ? error.details.error_code : error.code}: ${(error.messages || [error.message || error.detail]).join('; ')}${error.doc_url ? ` (see ${error.doc_url})` : ''}`
      : String(error === undefined ? '' : error).slice(0, 300);
  throw new CliError(`${method} ${shown} answered ${response.status} ${detail}`, EXIT.api);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The account to act on: --account-id / SWITCHYARD_ACCOUNT_ID, else the organization's only account. */
async function resolveAccount(options, env = process.env) {
  const given = options.accountId || env.SWITCHYARD_ACCOUNT_ID;
  if (given) return given;
  const { accounts } = await api(options, 'GET', '/v1/accounts');
  if (accounts.length === 1) return accounts[0].id;
  throw new CliError(`the organization has ${accounts.length} accounts: pass --account-id or set SWITCHYARD_ACCOUNT_ID (one of ${accounts.map((a) => a.id).join(', ')})`, EXIT.usage);
}

module.exports = { EXIT, CliError, parseArgs, resolveConfig, api, sleep, resolveAccount };
