'use strict';
/**
 * What every command shares: argument parsing, configuration (flags or environment), exit
 * codes, and calls to the Switchyard API with the key pair. Node built-ins only.
 */

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

/** One API call; a non-2xx answer becomes a CliError naming the code, the messages and the doc_url. */
async function api(options, method, urlPath, body, headers = {}) {
  let response;
  try {
    response = await fetch(`${options.url}${urlPath}`, {
      method,
      headers: { 'public-api-key': options.publicKey, 'private-secret-key': options.secretKey, 'user-agent': 'switchyard-cli', ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (error) {
    throw new CliError(`cannot reach Switchyard at ${options.url}: ${(error.cause && error.cause.message) || error.message}`, EXIT.api);
  }
  const text = await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const detail =
      parsed && typeof parsed === 'object'
        ? `${parsed.details && parsed.details.error_code ? parsed.details.error_code : parsed.code}: ${(parsed.messages || [parsed.message || parsed.detail]).join('; ')}${parsed.doc_url ? ` (see ${parsed.doc_url})` : ''}`
        : text.slice(0, 300);
    throw new CliError(`${method} ${urlPath} answered ${response.status} ${detail}`, EXIT.api);
  }
  return parsed;
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
