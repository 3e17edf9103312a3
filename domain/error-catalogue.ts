/**
 * Every error code Switchyard answers, with what it means and what to do about it. The docs
 * page renders one section per code (anchor `errors-<code>`), and every 4xx/5xx body links
 * to its code's section in `doc_url` (api/errors.ts). A code missing here links to its
 * area's section instead; test/unit/error-catalogue.test.ts keeps the list complete.
 */
import { DRY_RUN_ERROR_CODES } from './dry-run/errors';

export interface ErrorCodeDoc {
  code: string;
  /** Statuses it answers with. */
  statuses: number[];
  meaning: string;
  fix: string;
}

const NOT_FOUND_FIX = 'Check the id (it comes from the creating answer) and that you use the credentials of the organization that created it: resources of other organizations answer exactly like missing ones.';

export const ERROR_CODES: readonly ErrorCodeDoc[] = [
  { code: 'VALIDATION_ERROR', statuses: [400], meaning: 'The request does not match the operation\'s schema or rules.', fix: 'Read `errors[]`: each names the field path (`field`), a code (`REQUIRED`, `INVALID`, `OUT_OF_RANGE`...), what was expected (`expected`) and a message. Correct those fields and resend; a failed 400 does not consume the idempotency key.' },
  { code: 'INVALID_REQUEST', statuses: [400], meaning: 'Invalid request (payment methods to enroll, report download).', fix: 'Read `messages`: each names the field or header and what it must be.' },
  { code: 'INVALID_PARAMETERS', statuses: [400], meaning: 'Invalid parameters (organization administration; an X-Idempotency-Key longer than 64 characters on dry-run).', fix: 'Read the message: it names the parameter (e.g. user_id must be a UUID) and resend.' },
  { code: 'INVALID_AMOUNT', statuses: [400], meaning: 'A capture or refund amount is out of range for the payment.', fix: 'Send an amount greater than 0 and at most what can still be captured or refunded (see the payment\'s `amount`).' },
  { code: 'NOT_AUTHENTICATED', statuses: [401], meaning: 'No credentials were sent (or, on dry-run, payment_id was sent with the public key alone).', fix: 'Send the `public-api-key` and `private-secret-key` headers (npm start prints the sandbox merchant\'s; npm run admin -- create-merchant makes new ones).' },
  { code: 'INVALID_CREDENTIALS', statuses: [401], meaning: 'The credentials sent are unknown, do not belong together, or the bearer token is expired or revoked.', fix: 'Check both keys come from the same create-merchant answer and are sent unmodified; for embed tokens, authenticate again.' },
  { code: 'AuthenticationFail', statuses: [401], meaning: 'Dry-run: the key sent is unknown, or the two keys do not belong together.', fix: 'Send a key pair issued for your organization.' },
  { code: 'LOGIN_FAILED', statuses: [401], meaning: 'The whitelabel user cannot be authenticated (unknown, disabled, or of another organization).', fix: 'Create the user with POST /v1/organizations/users and use its id.' },
  { code: 'AUTHORIZATION_REQUIRED', statuses: [403], meaning: 'The credentials are valid but not for this resource (e.g. X-Organization-Code of another organization).', fix: 'Send your own organization code, or the credentials of the organization that owns the resource.' },
  { code: 'INVALID_SIGNATURE', statuses: [401, 403], meaning: 'A report download link was altered (403), or a provider webhook\'s signature does not verify with its connection\'s secret (401; also for an unknown connection or one without that secret).', fix: 'Report links: ask for a fresh one with GET /v2/reports/{report_id}/download and use it unmodified. Provider webhooks: store the provider\'s signing secret (Stripe webhook_secret, Adyen hmac_key) in the connection\'s credentials and point the provider at /v1/provider-webhooks/<that connection id>.' },
  { code: 'SIGNATURE_MISSING', statuses: [400], meaning: 'A provider webhook arrived without its signature (Stripe-Signature header, Adyen additionalData.hmacSignature).', fix: 'Enable signing at the provider (Stripe signs always; Adyen needs an HMAC key on the webhook).' },
  { code: 'INVALID_PROVIDER_EVENT', statuses: [400], meaning: 'A provider webhook body is not the provider\'s event shape.', fix: 'Send the provider\'s notification unmodified, as JSON.' },
  { code: 'LINK_EXPIRED', statuses: [403], meaning: 'A report download link is older than REPORT_LINK_TTL_SECONDS.', fix: 'Ask for a fresh link with GET /v2/reports/{report_id}/download.' },
  { code: 'NOT_FOUND', statuses: [404], meaning: 'No such resource for your organization.', fix: NOT_FOUND_FIX },
  { code: 'ROUTE_NOT_FOUND', statuses: [404], meaning: 'No operation at this path.', fix: 'Check the path against the API reference below (paths start with /v1, report download with /v2).' },
  ...['ACCOUNT', 'ACCOUNT_GROUP', 'CAMPAIGN', 'CONNECTION', 'CUSTOMER', 'CUSTOMER_SESSION', 'ICON', 'MERCHANT', 'ONBOARDING', 'ORGANIZATION', 'PAYMENT', 'PAYMENT_METHOD', 'RECIPIENT', 'REFUND', 'REPORT', 'RULE', 'SELLER', 'SUBSCRIPTION', 'TOKEN', 'TRANSFER', 'USER'].map(
    (resource): ErrorCodeDoc => ({ code: `${resource}_NOT_FOUND`, statuses: [404], meaning: `No such ${resource.toLowerCase().replace(/_/g, ' ')} for your organization.`, fix: NOT_FOUND_FIX }),
  ),
  { code: 'METHOD_NOT_ALLOWED', statuses: [405], meaning: 'The path exists but not with this method.', fix: 'Use one of the methods in the `Allow` header.' },
  { code: 'CONFLICT', statuses: [409], meaning: 'The request conflicts with the resource\'s current state.', fix: 'Read the resource again and decide on its current state.' },
  { code: 'INVALID_STATUS_TRANSITION', statuses: [409, 422], meaning: 'The resource\'s status does not allow this operation (e.g. capturing a declined payment, refunding a dry-run payment, changing a COMPLETED campaign).', fix: 'Read the resource\'s status; the transition tables are in the operation descriptions below.' },
  { code: 'DUPLICATE_MERCHANT_REFERENCE', statuses: [409], meaning: 'The merchant_reference is already used by another transfer of the account.', fix: 'Use a new merchant_reference, or read the existing transfer (`details.existing_id`, `Location`).' },
  { code: 'SELLER_ALREADY_EXISTS', statuses: [409], meaning: 'Your organization has a seller with this merchant_seller_id.', fix: 'Read it with GET /v1/sellers/{merchant_seller_id}, or use another id.' },
  { code: 'USER_ALREADY_EXISTS', statuses: [409], meaning: 'Your organization has a whitelabel user with this e-mail.', fix: 'Use the existing user, or another e-mail.' },
  { code: 'RECIPIENT_ALREADY_EXISTS', statuses: [409], meaning: 'The account has a recipient with this merchant_recipient_id.', fix: 'Use the existing recipient (`details.existing_id`), or another id.' },
  { code: 'ACCOUNT_GROUP_ALREADY_EXISTS', statuses: [409], meaning: 'Your organization has an account group with this name.', fix: 'Use the existing group, or another name.' },
  { code: 'REQUEST_IN_PROCESS', statuses: [400], meaning: 'A request with the same X-Idempotency-Key is still running.', fix: 'Retry the same request, with the same key, after a few seconds: it then answers the first request\'s outcome.' },
  { code: 'PAYLOAD_TOO_LARGE', statuses: [413], meaning: 'The request body is larger than the limit (16 MiB).', fix: 'Send a smaller body.' },
  { code: 'UNSUPPORTED_MEDIA_TYPE', statuses: [415], meaning: 'The body is not `Content-Type: application/json`, or its Content-Encoding is not gzip, deflate, br or identity.', fix: 'Send `Content-Type: application/json` with a UTF-8 JSON body.' },
  { code: 'UNPROCESSABLE_ENTITY', statuses: [422], meaning: 'The request is well-formed but cannot be carried out.', fix: 'Read the message and details.' },
  { code: 'PAYMENT_METHOD_NOT_SUPPORTED', statuses: [422], meaning: 'No connection of the payment\'s route can take this payment method in this country.', fix: 'Read the reasons in `messages`; add a provider connection and routing rule that can take it, or use another method. `Dry-run: true` validates it without routing.' },
  { code: 'UNREFERENCED_REFUND_NOT_SUPPORTED', statuses: [422], meaning: 'No provider of the route can push a credit to this payment method in this country.', fix: 'Use another destination, or pin a provider with the capability (`provider_data.id`).' },
  { code: 'SPLIT_NOT_SUPPORTED', statuses: [422], meaning: 'The provider has no split capability or no connector yet.', fix: 'Onboard the recipient on a provider with the `split` capability (e.g. SANDBOX).' },
  { code: 'RECIPIENT_NOT_ONBOARDED', statuses: [422], meaning: 'The recipient has no SUCCEEDED onboarding.', fix: 'Onboard it with POST /v1/recipients/{id}/onboardings first.' },
  { code: 'NO_LIVE_CONNECTION', statuses: [422], meaning: 'A payment with live keys, and the live account has no provider connection (live keys never reach the sandbox).', fix: 'Add a live provider connection (POST /v1/accounts/{account_id}/provider-connections with live credentials), or use the test keys to try the sandbox.' },
  { code: 'TEST_CARD_IN_LIVE_MODE', statuses: [400], meaning: 'A sandbox test card was sent with live keys.', fix: 'Use the test keys (pk_test_/sk_test_) with the sandbox test cards, and real cards with the live keys.' },
  { code: 'INSUFFICIENT_BALANCE', statuses: [422], meaning: 'The organization balance in this currency is lower than the transfer.', fix: 'Top it up (POST /v1/balances/top-ups in the sandbox) or transfer less; GET /v1/balances shows it.' },
  { code: 'PROVIDER_MISMATCH', statuses: [422], meaning: 'The transfer names another provider than the one the recipient was onboarded on.', fix: 'Use the recipient\'s onboarding provider.' },
  { code: 'INVALID_RULE', statuses: [422], meaning: 'A campaign rule is not valid (rule type, conditional, number of values, metadata_key).', fix: 'Read `details.errors`: each names the rule field and what it must be.' },
  { code: 'INVALID_CAMPAIGN', statuses: [422], meaning: 'The campaign\'s schedule or duration is not valid (empty window, end before start or in the past).', fix: 'Read `details.errors` and correct those fields.' },
  { code: 'RATE_LIMITED', statuses: [429], meaning: 'The credential exceeded its request quota.', fix: 'Wait `Retry-After` seconds, then retry; spread requests (see X-RateLimit-Remaining).' },
  { code: 'INTERNAL_ERROR', statuses: [500], meaning: 'An unexpected error; it has been logged with the request id.', fix: 'Retry with the same X-Idempotency-Key; if it persists, report the X-Request-Id.' },
  { code: 'SERVICE_UNAVAILABLE', statuses: [503], meaning: 'The lifecycle did not confirm in time, or a dependency is unreachable.', fix: 'Retry with the same X-Idempotency-Key: it joins the first request\'s work.' },
  ...DRY_RUN_ERROR_CODES.filter((e) => e.code.startsWith('TRAFFIC_LOG_')).map((e): ErrorCodeDoc => ({ code: e.code, statuses: [e.status], meaning: e.trigger, fix: 'Correct what the messages name and register again (a 400 does not consume the idempotency key).' })),
];

const BY_CODE = new Map(ERROR_CODES.map((e) => [e.code, e]));

export function errorCodeDoc(code: string): ErrorCodeDoc | undefined {
  return BY_CODE.get(code);
}

/** The docs page anchor of a code: `errors-payment-not-found`. */
export function errorAnchor(code: string): string {
  return `errors-${code.toLowerCase().replace(/_/g, '-')}`;
}

/** The docs page anchor of an area's error shape: `errors-area-dry-run`. */
export function errorAreaAnchor(area: string): string {
  return `errors-area-${area}`;
}
