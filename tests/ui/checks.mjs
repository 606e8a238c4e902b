// What the browser tests share: numbered "ok N - what" lines, and waiting for a page's text
// with a failure that names what the page showed instead.
export const TIMEOUT = 20000;

let passed = 0;

// Prints the next check's line.
export function ok(what) {
  passed++;
  console.log(`ok ${passed} - ${what}`);
}

// How many checks have passed.
export function passedCount() {
  return passed;
}

// Waits until `selector`'s text contains `text`; fails naming what it saw.
export async function seeText(page, selector, text, what) {
  try {
    await page.locator(selector).filter({hasText: text}).first().waitFor({timeout: TIMEOUT});
  } catch {
    const seen = await page.locator(selector).allTextContents().catch(() => []);
    throw new Error(`${what}: expected ${selector} to contain "${text}"; saw ${JSON.stringify(seen)}`);
  }
  ok(what);
}
