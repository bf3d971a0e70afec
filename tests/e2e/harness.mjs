// Browser-test harness: serves dist/ (with the production CSP) on a free loopback port and drives Debian's
// Chromium through playwright-core. Every page opened here records console errors, uncaught exceptions,
// failed requests and CSP violations; `assertClean()` fails the test on any of them.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/lib/chromium.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const SCREENSHOT_DIR = join(root, 'test-results/screenshots');

export { CHROMIUM_ARGS, CHROMIUM_PATH };

/**
 * Records the page's failed requests in `problems`, except those the browser aborted because the document (or
 * one of its workers) that issued them was being left: a language switch or a link can leave while a widget's
 * worker is still loading its modules, and no reader sees that. A request counts as the old document's when it
 * was issued before the latest main-frame navigation started, or it fails while that navigation is under way
 * (the old document may still issue requests until the new one commits, and they are aborted then).
 */
export function watchFailedRequests(page, problems) {
  let documents = 0; // main-frame navigations started so far
  let navigating = false; // from a main-frame navigation request until its document's DOMContentLoaded
  const issuedIn = new WeakMap();
  page.on('request', (req) => {
    if (req.isNavigationRequest() && req.frame() === page.mainFrame()) {
      documents += 1;
      navigating = true;
    }
    issuedIn.set(req, documents);
  });
  page.on('domcontentloaded', () => {
    navigating = false;
  });
  page.on('requestfailed', (req) => {
    const error = req.failure()?.errorText;
    if (req.isNavigationRequest()) navigating = false;
    else if (error === 'net::ERR_ABORTED' && (issuedIn.get(req) < documents || navigating)) return;
    problems.push(`request failed: ${req.url()} (${error})`);
  });
}

/**
 * Starts server and browser once per test file: `const lab = await startLab(); ... await lab.close()`.
 * connectSrc: origins the pages may also connect to (serve.mjs's option), e.g. a mock Hub on loopback.
 */
export async function startLab({ connectSrc = [] } = {}) {
  const { server, url } = await startServer({ siteRoot: join(root, 'dist'), port: 0, connectSrc });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
  return {
    url,
    browser,
    /**
     * Opens `path` (relative to the site root) in a fresh context; resolves to { page, problems, assertClean }.
     * `initScript` (a function) runs in every page of the context before the page's own scripts. `hasTouch`: a
     * touch screen, whose pointer CSS sees as coarse.
     */
    async open(
      path = '',
      { colorScheme = 'light', viewport = { width: 1280, height: 900 }, initScript, hasTouch = false } = {},
    ) {
      const context = await browser.newContext({ colorScheme, viewport, hasTouch });
      if (initScript) await context.addInitScript(initScript);
      const page = await context.newPage();
      const problems = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error' || (msg.type() === 'warning' && /Content.Security.Policy/i.test(msg.text())))
          problems.push(`console ${msg.type()}: ${msg.text()}`);
      });
      page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
      watchFailedRequests(page, problems);
      page.on('response', (res) => {
        if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
      });
      await page.goto(new URL(path, url).href);
      return {
        page,
        problems,
        assertClean() {
          if (problems.length) throw new Error(`the page reported problems:\n  ${problems.join('\n  ')}`);
        },
        async screenshot(name, target = page) {
          mkdirSync(SCREENSHOT_DIR, { recursive: true });
          await target.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
        },
        close: () => context.close(),
      };
    },
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
