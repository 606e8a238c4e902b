// Drives the cub dashboard in Debian's headless Chromium (playwright-core, no browser of its
// own) against a real cubd: log in by token, see the rollout, promote, see the refusal of a
// gate and why, approve as a second user, promote again and watch the Stage fill live. Saves a
// screenshot of each page to $CUB_UI_SHOTS. Any uncaught page error or CSP violation fails it.
//
// Environment: CUB_UI_URL (http://HOST:PORT), CUB_UI_SHOTS (a directory), and the tokens
// CUB_UI_TOKEN_DEPLOYER (wrote the change) and CUB_UI_TOKEN_ALICE (an approver).
// Exit code 0 when every check passed; each check prints one line.
import {chromium} from 'playwright-core';
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

import {TIMEOUT, ok, passedCount, seeText} from './checks.mjs';

const url = process.env.CUB_UI_URL;
const shots = process.env.CUB_UI_SHOTS;
const tokens = {deployer: process.env.CUB_UI_TOKEN_DEPLOYER, alice: process.env.CUB_UI_TOKEN_ALICE};

async function shot(page, name) {
  await page.screenshot({path: join(shots, `${name}.png`), fullPage: true});
  ok(`screenshot ${name}.png`);
}

async function login(page, who) {
  await page.getByLabel('API token').fill(tokens[who]);
  await page.getByRole('button', {name: 'Log in'}).click();
  await seeText(page, '#username', who, `logged in as ${who}`);
}

async function logout(page) {
  await page.getByRole('button', {name: 'Log out'}).click();
  await page.getByLabel('API token').waitFor({timeout: TIMEOUT});
  ok('logged out');
}

// Every form control has an accessible name (a <label for>, or aria-label).
async function checkLabels(page, what) {
  const unlabeled = await page.evaluate(() => [...document.querySelectorAll('input, select')]
    .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
    .map((el) => el.id || el.name));
  if (unlabeled.length) throw new Error(`${what}: controls without a label: ${unlabeled}`);
  ok(`${what}: every control is labeled`);
}

async function rollouts(page) {
  const row = 'tr[data-co="web-base/v2"]';
  await seeText(page, `${row} .state`, 'New', 'rollouts: the ChangeOrder is New');
  await page.locator(`${row} .stage[data-stage="dev"] [data-counts="0/0/0/1"]`)
    .waitFor({timeout: TIMEOUT});
  ok('rollouts: dev has 0 of 1 Spaces');
  await page.locator(`${row} .stage[data-stage="prod"] [data-counts="0/0/0/1"]`)
    .waitFor({timeout: TIMEOUT});
  ok('rollouts: prod has 0 of 1 Spaces');
  await seeText(page, `${row} .holds`, 'dev: nothing holds it', 'rollouts: what holds dev');
  await checkLabels(page, 'rollouts');
  await shot(page, '02-rollouts');
  await page.locator(`${row} a`).click();
  await seeText(page, 'h1', 'ChangeOrder web-base/v2', 'opened the ChangeOrder');
}

async function firstPromotion(page) {
  await seeText(page, '#next-stage', 'dev', 'next Stage is dev');
  await page.locator('#promote').click();
  await seeText(page, '#action-result', 'Promoted into dev: 1 landed', 'promoted into dev');
  // The counts come only from WatchChangeOrder's events: this is the live update.
  await page.locator('.wave[data-stage="dev"] [data-counts="1/0/0/1"]').waitFor({timeout: TIMEOUT});
  ok('dev filled live: 1 of 1 taken');
  await seeText(page, '.wave[data-stage="dev"] .space', 'taken', 'web-dev shows taken');
  await seeText(page, '#next-stage', 'prod', 'next Stage is prod');
  await seeText(page, '.wait', 'one-approver', 'the gate of prod is explained');
  await checkLabels(page, 'ChangeOrder');
  await shot(page, '03-promoted-dev');
}

async function refusal(page) {
  // The author's own vote is recorded but does not count: prod is refused, and says why.
  await page.getByLabel('Note for your vote').fill('my own change');
  await page.locator('#approve').click();
  await seeText(page, '#action-result', 'Recorded an approval in web-dev', 'the author voted');
  await page.locator('#promote').click();
  await seeText(page, '#action-result .error', 'requires one-approver',
    'promote refused with the gate');
  await seeText(page, '#action-result .error', 'did not write the change',
    'the refusal says the author does not count');
  await shot(page, '04-refusal');
}

async function approve(page) {
  await page.goto(`${url}/ui/#/queue`);
  await seeText(page, '.open', 'web-base/v2', 'open promotions: v2 waits for alice');
  await shot(page, '05-open-promotions');
  await page.getByRole('link', {name: 'web-base/v2'}).click();
  await seeText(page, '#next-stage', 'prod', 'alice sees prod next');
  await page.getByLabel('Note for your vote').fill('looks good');
  await page.locator('#approve').click();
  await seeText(page, '#action-result', 'Recorded an approval in web-dev', 'alice approved');
  await seeText(page, '.approvals tr', 'looks good', 'the vote is listed with its note');
  await shot(page, '06-approved');
}

async function secondPromotion(page) {
  await page.goto(`${url}/ui/#/co/web-base/v2`);
  await seeText(page, '#next-stage', 'prod', 'deployer sees prod next');
  await page.locator('#promote').click();
  await seeText(page, '#action-result', 'Promoted into prod: 1 landed', 'promoted into prod');
  await page.locator('.wave[data-stage="prod"] [data-counts="1/0/0/1"]')
    .waitFor({timeout: TIMEOUT});
  ok('prod filled live: 1 of 1 taken');
  await seeText(page, '#co-state', 'Resolved', 'the ChangeOrder is Resolved');
  await shot(page, '07-promoted-prod');
  await page.goto(`${url}/ui/#/`);
  await seeText(page, 'tr[data-co="web-base/v2"] .state', /Resolved|Completed/, 'rollouts: done');
  await shot(page, '08-rollouts-resolved');
  await page.setViewportSize({width: 390, height: 844});
  await shot(page, '09-rollouts-phone');
  await page.goto(`${url}/ui/#/co/web-base/v2`);
  await seeText(page, '#co-state', 'Resolved', 'ChangeOrder page at phone width');
  await shot(page, '10-changeorder-phone');
}

async function main() {
  mkdirSync(shots, {recursive: true});
  const profile = mkdtempSync(join(tmpdir(), 'cub-ui-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: {width: 1280, height: 800},
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const problems = [];
  try {
    const page = ctx.pages()[0] || await ctx.newPage();
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      // A refused call logs "Failed to load resource"; the page shows the API's reason itself.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) {
        problems.push(`console: ${m.text()}`);
      }
    });
    await page.goto(`${url}/`);
    await page.getByLabel('API token').waitFor({timeout: TIMEOUT});
    ok('/ redirects to the login page');
    await checkLabels(page, 'login');
    await page.keyboard.press('Tab');  // the skip link, then the token field, by keyboard
    await page.getByLabel('API token').fill('cub_not-a-token');
    await page.keyboard.press('Enter');
    await seeText(page, '[role="alert"]', /\S/, 'a bad token is refused with the API reason');
    console.log(`#   refusal shown: ${await page.locator('[role="alert"]').textContent()}`);
    await shot(page, '01-login-refused');
    await login(page, 'deployer');
    await rollouts(page);
    await firstPromotion(page);
    await refusal(page);
    await logout(page);
    await login(page, 'alice');
    await approve(page);
    await logout(page);
    await login(page, 'deployer');
    await secondPromotion(page);
  } finally {
    await ctx.close();
    rmSync(profile, {recursive: true, force: true});
  }
  if (problems.length) throw new Error(`the page reported:\n${problems.join('\n')}`);
  console.log(`1..${passedCount()}`);
}

main().catch((err) => {
  console.error(`not ok - ${err.message}`);
  process.exit(1);
});
