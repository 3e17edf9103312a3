/**
 * The dry-run dashboard in a real browser: Debian's Chromium driven by playwright-core.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, BrowserContext } from 'playwright-core';
import type { IssuedCredentials } from '../../domain/credentials';
import { call, getStack, newMerchant } from '../support/stack';
import { dryRunPay, paymentFor, register, registrationBody, uniqueReference, waitForRegistration } from '../support/dry-run';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

describe('dry-run dashboard (integration, headless Chromium)', function () {
  this.timeout(120_000);
  let browser: BrowserContext;
  let profileDir: string;
  let url: string;
  let merchant: IssuedCredentials;
  let registrationId: string;
  let reference: string;

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) return this.skip();
    url = (await getStack()).url;
    merchant = await newMerchant('Dashboard merchant');
    reference = uniqueReference('dash');
    registrationId = (await register(merchant, registrationBody(reference))).body.id;
    await register(merchant, registrationBody(uniqueReference('other')));
    // installments 6 against 3 at the provider: one ERROR finding on both sides
    const payment = paymentFor(merchant, reference);
    payment.payment_method.detail.card.installments = 6;
    await dryRunPay(merchant, payment);
    await waitForRegistration(merchant, registrationId, (r) => r.status === 'VALIDATED');
    profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-chromium-'));
    // A fresh profile directory (Playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  after(async () => {
    await browser?.close();
    if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
  });

  it('asks for credentials, lists registrations with verdicts, opens a report with the finding highlighted on both sides', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${url}/dashboard/dry-run`);
    await page.waitForSelector('#login:not([hidden])');
    await page.fill('#public-key', merchant.public_api_key);
    await page.fill('#secret-key', merchant.private_secret_key);
    await page.click('#login-button');

    const row = page.locator(`#list tbody tr[data-id="${registrationId}"]`);
    await row.waitFor();
    assert.equal(await page.locator('#list tbody tr').count(), 2);
    assert.equal(await row.locator('.reference').textContent(), reference);
    assert.equal(await row.locator('.verdict').textContent(), 'FAIL');
    const stored = await page.evaluate('sessionStorage.getItem("switchyard.dryrun.credentials")');
    assert.match(String(stored), new RegExp(merchant.public_api_key));

    await row.click();
    const finding = page.locator('.finding', { hasText: 'INSTALLMENTS_MISMATCH' });
    await finding.waitFor();
    assert.match(String(await finding.textContent()), /ERROR INSTALLMENTS_MISMATCH/);
    await finding.click();
    const serviceHighlight = page.locator('#service .hl');
    const providerHighlight = page.locator('#provider .hl');
    assert.equal(await serviceHighlight.getAttribute('data-path'), 'payment_method.detail.card.installments');
    assert.match(String(await serviceHighlight.textContent()), /6/);
    assert.equal(await providerHighlight.getAttribute('data-path'), 'installments');
    assert.equal(await providerHighlight.getAttribute('data-event'), '0');
    assert.match(String(await providerHighlight.textContent()), /3/);
    // the redacted card is shown as placeholders, never the number
    assert.match(String(await page.locator('#provider').textContent()), /\[PAN:411111\*{6}1111:/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('opens with a whitelabel embed token handed over in the address fragment', async () => {
    const user = await call('/v1/organizations/users', { body: { name: 'Portal viewer', email: `viewer-${Date.now()}@example.com` }, credentials: merchant });
    assert.equal(user.status, 201);
    const token = await call('/v1/organizations/authenticate', { body: { user_id: user.body.id }, credentials: merchant });
    assert.equal(token.status, 200);
    const page = await browser.newPage();
    await page.goto(`${url}/dashboard/dry-run#token=${token.body.access_token}`);
    const row = page.locator(`#list tbody tr[data-id="${registrationId}"]`);
    await row.waitFor();
    assert.equal(await row.locator('.verdict').textContent(), 'FAIL');
    assert.equal(await page.evaluate('location.hash'), '', 'the token is removed from the address bar');
    assert.equal(await page.locator('#who').textContent(), 'embed token');
    await page.close();
  });

  it('rejects a tampered embed token on the read API', async () => {
    const response = await call('/v1/dry-run/provider-events', { headers: { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.invalid' } });
    assert.equal(response.status, 401);
    assert.equal(response.body.httpCode, 401);
  });
});
