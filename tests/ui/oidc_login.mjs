// The dashboard's OpenID login in Debian's headless Chromium (playwright-core): the log-in page
// lists the provider cubd trusts; following it, the person signs in at the real test provider
// (tests/oidc/provider.mjs: its login and consent forms), comes back to cubd's callback and
// lands in the dashboard as themselves; a callback with no log-in in progress is refused with
// the reason; logging out ends the session. Saves screenshots to $CUB_UI_SHOTS.
//
// Environment: CUB_UI_URL (http://HOST:PORT of cubd's HTTP listener), CUB_UI_SHOTS, and
// CUB_UI_OIDC_USER (an account of the provider). Exit code 0 when every check passed.
import {chromium} from 'playwright-core';
import {mkdirSync} from 'node:fs';
import {join} from 'node:path';

import {TIMEOUT, ok, seeText as see} from './checks.mjs';

const url = process.env.CUB_UI_URL;
const shots = process.env.CUB_UI_SHOTS;
const user = process.env.CUB_UI_OIDC_USER;

mkdirSync(shots, {recursive: true});
const browser = await chromium.launch({executablePath: '/usr/bin/chromium', args: ['--no-sandbox']});
const errors = [];
try {
  const page = await browser.newPage({viewport: {width: 1280, height: 800}});
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/.test(m.text())) errors.push(m.text());
  });
  page.setDefaultTimeout(TIMEOUT);

  await page.goto(`${url}/ui/`);
  const issuerHost = new URL(process.env.CUB_UI_ISSUER).host;
  const link = page.getByRole('link', {name: `Log in at ${issuerHost}`});
  await link.waitFor();
  ok('the log-in page offers the trusted provider');
  await page.screenshot({path: join(shots, 'oidc-01-login.png'), fullPage: true});

  await link.click();
  // The provider's own pages (oidc-provider's development interactions): sign in, then consent.
  await page.locator('input[name="login"]').fill(user);
  await page.locator('input[name="password"]').fill('any password');
  ok('at the provider\'s sign-in form');
  await page.locator('button[type="submit"]').first().click();
  await page.waitForURL((u) => u.origin === new URL(url).origin ||
    /interaction/.test(u.pathname), {timeout: TIMEOUT});
  if (new URL(page.url()).origin !== new URL(url).origin) {
    await page.locator('button[type="submit"]').first().click();  // the consent form
    ok('consented at the provider');
  }
  await see(page, '#username', user, `back in the dashboard as ${user}`);
  if (!page.url().startsWith(`${url}/ui/`)) throw new Error(`landed at ${page.url()}`);
  await see(page, 'h1', 'Rollouts', 'the Rollouts page loads with the OpenID session');
  const cookies = await page.context().cookies(url);
  const session = cookies.find((c) => c.name === 'cub_session');
  if (!session || !session.httpOnly || session.sameSite !== 'Strict') {
    throw new Error(`session cookie: ${JSON.stringify(session)}`);
  }
  if (cookies.some((c) => c.name === 'cub_oidc')) throw new Error('the log-in cookie was kept');
  ok('session cookie HttpOnly, SameSite=Strict; log-in cookie cleared');
  await page.screenshot({path: join(shots, 'oidc-02-logged-in.png'), fullPage: true});

  // A callback this browser did not start: refused, saying why, and the session is unchanged.
  await page.goto(`${url}/ui/oidc/callback?code=forged&state=forged`);
  await see(page, '#login-failure', 'no log-in in progress', 'a forged callback is refused');
  await page.screenshot({path: join(shots, 'oidc-03-refused.png'), fullPage: true});
  await page.getByRole('link', {name: 'Back to the log-in page'}).click();
  await see(page, '#username', user, 'the session survived the forged callback');

  await page.getByRole('button', {name: 'Log out'}).click();
  await page.getByRole('link', {name: `Log in at ${issuerHost}`}).waitFor();
  ok('logged out');
  if (errors.length) throw new Error(errors.join('\n'));
  ok('no page error and no CSP violation');
} finally {
  await browser.close();
}
