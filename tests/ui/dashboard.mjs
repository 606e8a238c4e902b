// Drives the cub dashboard in Debian's headless Chromium (playwright-core, no browser of its
// own) against a real cubd: log in by token, see the rollout, promote, open the Review page and
// see the diff, see the author (and a viewer without the approver role) told why they may not
// vote, see the refusal of the gate, approve as alice from Open promotions, request changes and
// then approve as bob, promote again and watch the Stage fill live; then, once the operator's
// side has published and reported (over the REST API, as an operator would), the Space page
// with the Release's live status, scan findings, history and the freeze in force. Saves a
// screenshot of each page to $CUB_UI_SHOTS. Any uncaught page error or CSP violation fails it.
//
// Environment: CUB_UI_URL (http://HOST:PORT), CUB_UI_SHOTS (a directory), and the tokens
// CUB_UI_TOKEN_DEPLOYER (wrote the change), CUB_UI_TOKEN_ALICE and CUB_UI_TOKEN_BOB
// (approvers), CUB_UI_TOKEN_CAROL (a viewer only) and CUB_UI_TOKEN_ADMIN (the operator's side).
// Exit code 0 when every check passed; each check prints one line.
import {chromium} from 'playwright-core';
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

import {TIMEOUT, ok, passedCount, seeText} from './checks.mjs';

const url = process.env.CUB_UI_URL;
const shots = process.env.CUB_UI_SHOTS;
const tokens = {deployer: process.env.CUB_UI_TOKEN_DEPLOYER, alice: process.env.CUB_UI_TOKEN_ALICE,
  bob: process.env.CUB_UI_TOKEN_BOB, carol: process.env.CUB_UI_TOKEN_CAROL};

// A REST call as the server admin: what a release pipeline and the GitOps operator would do.
async function operator(method, body) {
  const resp = await fetch(`${url}/v1/${method}`, {method: 'POST', body: JSON.stringify(body),
    headers: {'Content-Type': 'application/json',
      Authorization: `Bearer ${process.env.CUB_UI_TOKEN_ADMIN}`}});
  const text = await resp.text();
  if (!resp.ok) throw new Error(`${method}: HTTP ${resp.status}: ${text}`);
  return JSON.parse(text || '{}');
}

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

// The modules and the stylesheet come from their content-addressed paths only (index.html's
// import map sends the modules' imports of each other there too), and a second load takes
// every one of them from the browser's cache: only index.html and the API go to cubd again.
// (A refused import map would show as a CSP violation, and its modules at their plain paths.)
async function assetsCached(page) {
  await page.goto(`${url}/ui/?again=1#/`);
  await page.locator('#username').waitFor({timeout: TIMEOUT});
  const assets = await page.evaluate(() => performance.getEntriesByType('resource')
    .map((e) => ({path: new URL(e.name).pathname, bytes: e.transferSize}))
    .filter((e) => /^\/ui\/.*\.(js|css)$/.test(e.path)));
  const plain = assets.filter((a) => !/^\/ui\/[a-z]+\.[0-9a-f]{32}\.(js|css)$/.test(a.path));
  if (plain.length) throw new Error(`assets at unversioned paths: ${JSON.stringify(plain)}`);
  for (const name of ['app', 'api', 'rollouts', 'dom', 'style']) {
    if (!assets.some((a) => a.path.startsWith(`/ui/${name}.`))) {
      throw new Error(`${name} was not loaded: ${JSON.stringify(assets)}`);
    }
  }
  ok(`the page loads its ${assets.length} modules and stylesheet at versioned paths`);
  const fetched = assets.filter((a) => a.bytes > 0);
  if (fetched.length) throw new Error(`asked cubd again for ${JSON.stringify(fetched)}`);
  ok('a second page load takes them from the cache');
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
  await page.locator(`${row} th a`).click();
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

// The Unit's diff on the Review page: the image moved from v1 to v2.
async function seeDiff(page, who) {
  const unit = '.unit-diff[data-unit="deployment"]';
  await seeText(page, `${unit} .mut.replace .old`, 'ghcr.io/acme/acme:v1', `${who}: diff has v1`);
  await seeText(page, `${unit} .mut.replace .new`, 'ghcr.io/acme/acme:v2', `${who}: diff has v2`);
  await seeText(page, `${unit} .path`, 'image', `${who}: diff names the image's path`);
}

async function noVoteButtons(page, what) {
  const n = await page.locator('#approve, #reject').count();
  if (n !== 0) throw new Error(`${what}: ${n} vote button(s) shown to someone who may not vote`);
  ok(`${what}: no vote button`);
}

async function authorReview(page) {
  // The ChangeOrder page leads to Review, which opens where a vote counts now: web-dev, whose
  // votes prod's gate reads.
  if (await page.locator('#approve').count()) throw new Error('the ChangeOrder page still votes');
  await page.locator('#review').click();
  await seeText(page, 'h1', 'Review web-base/v2 in web-dev', 'review opens in web-dev');
  await seeDiff(page, 'deployer');
  // The promotion into web-dev wrote its revision there as the deployer: an author.
  await seeText(page, '#vote-refused .reason', 'You wrote revision',
    'the author is told why they may not vote');
  await seeText(page, '#vote-refused .reason', 'do not count', 'and that authors do not count');
  await noVoteButtons(page, 'author');
  await seeText(page, '.gate-message', 'requires one-approver', 'the gate is shown with its words');
  await checkLabels(page, 'Review');
  await shot(page, '04-review-author');
  await page.getByRole('link', {name: '← ChangeOrder web-base/v2'}).click();
  await seeText(page, '#next-stage', 'prod', 'back on the ChangeOrder page');
  await page.locator('#promote').click();
  await seeText(page, '#action-result .error', 'requires one-approver',
    'promote refused with the gate');
  await seeText(page, '#action-result .error', 'did not write the change',
    'the refusal says authors do not count');
  await shot(page, '05-refusal');
}

async function noRoleReview(page) {
  await page.goto(`${url}/ui/#/review/web-base/v2?space=web-dev`);
  await seeDiff(page, 'carol');
  // Approve with DryRun answers with the API's own refusal of the role.
  await seeText(page, '#vote-refused .reason', 'approver', 'carol is refused for the role');
  const reason = await page.locator('#vote-refused .reason').first().textContent();
  console.log(`#   refusal shown: ${reason}`);
  await noVoteButtons(page, 'carol');
  await shot(page, '06-review-no-role');
}

async function approve(page) {
  await page.goto(`${url}/ui/#/queue`);
  await seeText(page, '.open', 'web-base/v2', 'open promotions: v2 waits for alice');
  await shot(page, '07-open-promotions');
  await page.getByRole('link', {name: 'Review web-base/v2'}).click();
  await seeText(page, 'h1', 'Review web-base/v2 in web-dev', 'alice reviews in web-dev');
  await seeDiff(page, 'alice');
  await seeText(page, '#vote-status .help', 'alice', 'the gate waits for alice');
  await page.getByLabel('Note for your vote').fill('looks good');
  await page.getByRole('button', {name: 'Approve'}).click();
  await seeText(page, '#vote-result', 'Recorded an approval in web-dev', 'alice approved');
  await seeText(page, '.approvals tr', 'looks good', 'the vote is listed with its note');
  await seeText(page, '#my-vote', 'approved', 'alice sees her vote');
  await shot(page, '08-review-approved');
}

async function requestChanges(page) {
  await page.goto(`${url}/ui/#/review/web-base/v2`);
  await seeText(page, 'h1', 'Review web-base/v2 in web-dev', 'bob reviews in web-dev');
  await page.getByLabel('Note for your vote').fill('please pin the digest');
  await page.getByRole('button', {name: 'Request changes'}).click();
  await seeText(page, '#vote-result', 'Recorded a request for changes in web-dev',
    'bob requested changes');
  await seeText(page, '.approvals tr', 'Requested changes', 'the request is listed');
  // One eligible request for changes holds the gate, whatever the approvals.
  await seeText(page, '.gate-message', 'rejected by bob', 'the gate is held by bob');
  await shot(page, '09-review-changes-requested');
  await page.getByLabel('Note for your vote').fill('fine as it is');
  await page.getByRole('button', {name: 'Approve'}).click();
  await seeText(page, '#my-vote', 'approved', 'bob\'s latest vote replaces his request');
  await page.locator('.gate-message').waitFor({state: 'detached', timeout: TIMEOUT});
  ok('the gate holds again');
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
  await seeText(page, '#co-created', 'deployer', 'Created names the person, not an ID');
  await shot(page, '10-promoted-prod');
  await page.goto(`${url}/ui/#/`);
  await seeText(page, 'tr[data-co="web-base/v2"] .state', /Resolved|Completed/, 'rollouts: done');
  await shot(page, '11-rollouts-resolved');
}

// The operator's side, then the Space page of prod, reached from the ChangeOrder page.
async function spacePage(page) {
  const rel = await operator('ReleaseService/PublishRelease',
    {Space: 'web-prod', Revision: 'ChangeOrder:web-base/v2', Description: 'v2'});
  await operator('ReleaseService/SetReleaseStatus', {Space: 'web-prod', Release: rel.ReleaseNum,
    Sync: 'Synced', Health: 'Healthy', Message: 'rolled out'});
  await operator('ReleaseService/SetReleaseStatus', {Space: 'web-prod', Release: rel.ReleaseNum,
    Vulnerabilities: {high: 1, low: 3}});
  await operator('FreezeService/CreateFreeze', {Space: 'platform', Slug: 'year-end',
    Reason: 'year-end change freeze'});
  await operator('FreezeService/CreateFreeze', {Space: 'platform', Slug: 'dev-only',
    Reason: 'dev is being rebuilt', ChangeWorkflow: 'platform/flow', Stages: ['dev']});
  ok(`operator published Release ${rel.ReleaseNum}, reported it, froze the line`);
  await page.goto(`${url}/ui/#/co/web-base/v2`);
  await page.locator('.wave[data-stage="prod"] .space-link', {hasText: 'web-prod'}).click();
  await seeText(page, 'h1', 'Space web-prod', 'opened the Space page from the ChangeOrder');
  const row = `#releases tr[data-release="${rel.ReleaseNum}"]`;
  await seeText(page, `${row} .live`, 'Synced, Healthy', 'the Release shows its live status');
  await seeText(page, `${row} .findings`, '1 high, 3 low', 'and its scan findings');
  await seeText(page, `${row}`, 'web-base/v2', 'and its ChangeOrder');
  await seeText(page, '#history tr[data-release="1"] .end', 'Superseded',
    'history: Release 1 was superseded');
  await seeText(page, `#history tr[data-release="${rel.ReleaseNum}"] .end`, 'current',
    'history: the new one is current');
  await seeText(page, '#freezes', 'year-end change freeze', 'the freeze in force is shown');
  if (await page.locator('#freezes [data-freeze="dev-only"]').count()) {
    throw new Error('a freeze of the dev Stage is shown on prod');
  }
  ok('a freeze that does not cover prod is left out');
  await seeText(page, '#units tr[data-unit="deployment"]', 'deployment', 'the Units are listed');
  await checkLabels(page, 'Space');
  await shot(page, '12-space');
  await page.setViewportSize({width: 390, height: 844});
  await shot(page, '13-space-phone');
  await page.goto(`${url}/ui/#/`);
  await seeText(page, 'tr[data-co="web-base/v2"] .state', /Resolved|Completed/,
    'rollouts at phone width');
  await shot(page, '14-rollouts-phone');
  await page.goto(`${url}/ui/#/review/web-base/v2?space=web-prod`);
  await seeDiff(page, 'phone');
  await shot(page, '15-review-phone');
  await page.goto(`${url}/ui/#/co/web-base/v2`);
  // Its Release is published in prod now: Released.
  await seeText(page, '#co-state', 'Released', 'ChangeOrder page at phone width');
  await shot(page, '16-changeorder-phone');
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
    await assetsCached(page);
    await rollouts(page);
    await firstPromotion(page);
    await authorReview(page);
    await logout(page);
    await login(page, 'carol');
    await noRoleReview(page);
    await logout(page);
    await login(page, 'alice');
    await approve(page);
    await logout(page);
    await login(page, 'bob');
    await requestChanges(page);
    await logout(page);
    await login(page, 'deployer');
    await secondPromotion(page);
    await spacePage(page);
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
