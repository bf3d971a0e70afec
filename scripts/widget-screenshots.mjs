// Screenshots of every widget in every language, light, dark and print (the print palette and print layout,
// emulated): test-results/screenshots/widgets/<tag>-<lang>-<scheme>.png. For looking at, not for comparing
// pixels. Runs the built dist/ (node scripts/build.mjs first): node scripts/widget-screenshots.mjs [tag ...]
// The warmup race runs its shortest race (100 steps) so that its chart has curves.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SCREENSHOT_DIR, startLab } from '../tests/e2e/harness.mjs';
import { LANGUAGES } from '../web/languages.js';
import { RUNNING_WIDGETS, WIDGET_TAGS, screenshotWidget } from '../tests/e2e/widget-helpers.mjs';

const TAGS = WIDGET_TAGS;
const PAGES = Object.fromEntries(LANGUAGES.map((row) => [row.code, `${row.page}?warm.steps=100`]));
const SCHEMES = ['light', 'dark', 'print'];
const wanted = process.argv.slice(2);
const tags = wanted.length ? TAGS.filter((t) => wanted.includes(t)) : TAGS;
const outDir = join(SCREENSHOT_DIR, 'widgets');
mkdirSync(outDir, { recursive: true });

/** Waits until a widget has drawn: data-ready, and a finished run for those that compute by themselves. */
async function settle(widget, tag) {
  await widget.scrollIntoViewIfNeeded();
  await widget
    .page()
    .waitForFunction(
      ([el, decoder]) => (decoder ? ['done', 'error'].includes(el.dataset.status) : el.hasAttribute('data-ready')),
      [await widget.elementHandle(), RUNNING_WIDGETS.includes(tag)],
      { timeout: 120000 },
    );
}

const lab = await startLab();
try {
  for (const [lang, path] of Object.entries(PAGES)) {
    for (const scheme of SCHEMES) {
      const view = await lab.open(path, {
        colorScheme: scheme === 'dark' ? 'dark' : 'light',
        viewport: { width: 900, height: 900 },
      });
      const { page } = view;
      for (const tag of tags) {
        const widget = page.locator(tag).first(); // the self-check: the first section's
        if (tag === 'rl-warmup-race') {
          await widget.scrollIntoViewIfNeeded();
          await widget.locator('button.run').click();
          await page.waitForFunction((el) => el.dataset.status === 'done', await widget.elementHandle(), {
            timeout: 180000,
          });
        } else {
          await settle(widget, tag);
        }
        await page.waitForTimeout(200);
        if (scheme === 'print') await page.emulateMedia({ media: 'print' });
        await page.waitForTimeout(200);
        await screenshotWidget(view, widget, `widgets/${tag}-${lang}-${scheme}`);
        if (scheme === 'print') await page.emulateMedia({ media: 'screen' });
        console.log(`${tag}-${lang}-${scheme}`);
      }
      view.assertClean();
      await view.close();
    }
  }
} finally {
  await lab.close();
}
