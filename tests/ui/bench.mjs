// Times the dashboard's pages in Debian's headless Chromium (tests/bench/ui_bench.sh seeds the
// fleet). Each figure is CUB_BENCH_RUNS full page loads (a new URL, so the modules, the session
// and every API call run again; the log-in cookie is set once), from navigation start to the
// selector that says the page is shown. Prints the median and the worst, and the 300 ms target.
//
// Environment: CUB_UI_URL, CUB_UI_TOKEN (a viewer), CUB_BENCH_RUNS.
import {chromium} from 'playwright-core';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

const url = process.env.CUB_UI_URL;
const runs = Number(process.env.CUB_BENCH_RUNS || 7);
const TARGET_MS = 300;
const TIMEOUT = 20000;

let load = 0;
// One full load of `hash`, timed until `ready` resolves.
async function timeLoad(page, hash, ready) {
  if (process.env.CUB_BENCH_DEBUG) console.error(`# load ${load + 1} ${hash}`);
  const t0 = Date.now();
  await page.goto(`${url}/ui/?load=${++load}${hash}`);
  await ready(page);
  return Date.now() - t0;
}

// With CUB_BENCH_TRACE set, the requests of one more load of each figure, as offsets from the
// navigation's start: where a page's time goes (assets, session, API calls, their overlap).
async function trace(page, hash, ready) {
  const seen = [];
  const onDone = (req) => seen.push(req);
  page.on('requestfinished', onDone);
  const t0 = Date.now();
  await timeLoad(page, hash, ready);
  const total = Date.now() - t0;
  page.off('requestfinished', onDone);
  const rows = seen.map((req) => {
    const t = req.timing();
    return {start: t.startTime - t0, end: t.startTime + t.responseEnd - t0, url: req.url()};
  }).sort((a, b) => a.start - b.start);
  for (const r of rows) {
    const path = r.url.replace(url, '').slice(0, 70);
    console.log(`#   ${String(Math.round(r.start)).padStart(5)} ..${String(Math.round(r.end))
      .padStart(5)} ms  ${path}`);
  }
  // The page's own clock (from its navigation start): when its document was parsed, when its
  // load event ended (page.goto waits for it), and when `ready` saw it shown.
  const nav = await page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0];
    return {dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, now: performance.now()};
  });
  console.log(`#   ready at ${total} ms; page clock: DOMContentLoaded ${Math.round(nav.dcl)}, ` +
    `load ${Math.round(nav.load)}, shown by ${Math.round(nav.now)} ms`);
}

async function figure(page, what, hash, ready) {
  await timeLoad(page, hash, ready);  // a warm-up load: the first one compiles the modules
  if (process.env.CUB_BENCH_TRACE) await trace(page, hash, ready);
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await timeLoad(page, hash, ready));
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const worst = times[times.length - 1];
  console.log(`${what.padEnd(34)} median ${String(median).padStart(5)} ms, worst ` +
    `${String(worst).padStart(5)} ms  (${median <= TARGET_MS ? 'within' : 'OVER'} ` +
    `the ${TARGET_MS} ms target)`);
}

const rows = (n) => async (page) => {
  await page.locator('table.rollouts tbody tr').nth(n - 1).waitFor({timeout: TIMEOUT});
};

async function main() {
  const profile = mkdtempSync(join(tmpdir(), 'cub-ui-bench-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: {width: 1280, height: 800},
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = ctx.pages()[0] || await ctx.newPage();
    await page.goto(`${url}/ui/`);
    await page.getByLabel('API token').fill(process.env.CUB_UI_TOKEN);
    await page.getByRole('button', {name: 'Log in'}).click();
    await page.locator('#username').waitFor({timeout: TIMEOUT});
    const count = await page.evaluate(async () => {
      const r = await fetch('/ui/session');
      return r.ok ? 'logged in' : `session ${r.status}`;
    });
    console.log(`# ${count}; ${runs} loads per figure after one warm-up`);
    const listed = Math.min(25, Number(process.env.CUB_BENCH_COS || 200));
    await figure(page, `Rollouts: first render (${listed} rows)`, '#/', rows(listed));
    await figure(page, 'Rollouts: every row live', '#/', async (p) => {
      await rows(listed)(p);
      await p.waitForFunction((n) => {
        const trs = [...document.querySelectorAll('table.rollouts tbody tr')];
        return trs.length >= n && trs.every((tr) => tr.querySelector('.stages .stage'));
      }, listed, {timeout: TIMEOUT});
    });
    await figure(page, 'ChangeOrder page (1,000 Spaces)', '#/co/web-base/v1', async (p) => {
      await p.locator('#co-state').waitFor({timeout: TIMEOUT});
      await p.locator('.wave[data-stage="prod"] .spaces li').first().waitFor({timeout: TIMEOUT});
      await p.locator('.wave[data-stage="dev"] .spaces li').first().waitFor({timeout: TIMEOUT});
    });
    await figure(page, 'Review page (base)', '#/review/web-base/v1?space=web-base', async (p) => {
      await p.locator('.unit-diff[data-unit="deployment"] .mut').first()
        .waitFor({timeout: TIMEOUT});
    });
    await figure(page, 'Space page', '#/space/web-0001', async (p) => {
      await p.locator('#units tr[data-unit="deployment"]').waitFor({timeout: TIMEOUT});
      await p.locator('#releases .pager-status .empty, #releases tbody tr').first()
        .waitFor({timeout: TIMEOUT});
    });
  } finally {
    await ctx.close();
    rmSync(profile, {recursive: true, force: true});
  }
}

main().catch((err) => {
  console.error(`ui bench failed: ${err.message}`);
  process.exit(1);
});
