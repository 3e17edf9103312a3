'use strict';
/**
 * The `switchyard` command line: dispatches to the commands.
 */
const { EXIT, CliError, parseArgs } = require('./common');
const dryRun = require('./dry-run');
const { paymentsGet, trigger, listen, TRIGGERS } = require('./commands');

const USAGE = `Usage: switchyard <command> [options]

  dry-run check --traffic FILE --payment FILE [...]   register provider traffic and a Dry-run: true payment, wait for the report
  payments get <payment_id> [--include-transactions] [--include-raw-response]
  trigger ${Object.keys(TRIGGERS).join('|')}   create a sandbox test payment producing that event
  listen --forward-to URL [--events TYPE,...] [--from-start] [--max-events N]
                                                       forward the organization's webhook events, signed, to a local URL

Every command: --url URL (env SWITCHYARD_URL, default http://127.0.0.1:3000),
  --public-key KEY (env SWITCHYARD_PUBLIC_KEY), --secret-key KEY (env SWITCHYARD_SECRET_KEY);
  trigger also --account-id ID (env SWITCHYARD_ACCOUNT_ID; default: the organization's only account).
Exit codes: 0 done; 1 dry-run verdict at or above --fail-on; 2 usage error; 3 Switchyard refused a call or could not be reached.

\`switchyard dry-run check --help\` lists the dry-run options.
`;

async function main(argv) {
  const { options, positional } = parseArgs(argv);
  const [command, sub, arg] = positional;
  if (command === 'dry-run' && sub === 'check') return dryRun.check(options);
  if (options.help || positional.length === 0) {
    process.stdout.write(USAGE);
    return positional.length === 0 && !options.help ? EXIT.usage : EXIT.ok;
  }
  if (command === 'payments' && sub === 'get') return paymentsGet(options, arg);
  if (command === 'trigger') return trigger(options, sub);
  if (command === 'listen') return listen(options);
  throw new CliError(`unknown command: ${positional.join(' ')}\n\n${USAGE}`, EXIT.usage);
}

function run(argv = process.argv.slice(2)) {
  main(argv).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`switchyard: ${error.message}\n`);
      process.exit(error.exitCode ?? EXIT.api);
    },
  );
}

module.exports = { main, run, USAGE, fromHar: dryRun.fromHar, fromSwitchyardJson: dryRun.fromSwitchyardJson, junit: dryRun.junit };
