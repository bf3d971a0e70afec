// The chapter page shell: language switch (place and widget state kept), theme toggle (remembered, follows the
// system when no choice is stored), contents that follow scrolling, the decoder widgets, phone and print layouts,
// and the stand-alone embedding example. Every page must load without a console error or CSP violation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { WIDGETS } from '../../web/components/registry.js';
import { EXERCISE_SECTIONS } from '../../web/components/self-check/exercises.js';
import {
  EN,
  WORKER_WIDGETS,
  ZH,
  eventually,
  expectText,
  openReady,
  reopen,
  screenshotWidget,
  textOf,
} from './widget-helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

const headingTop = (page, id) =>
  page.evaluate((target) => document.getElementById(target).getBoundingClientRect().top, id);

test('both pages load every widget with no console error, CSP violation or failed request', async () => {
  for (const path of [ZH, EN]) {
    const view = await openReady(lab, path);
    // one of each in its section; the self-check closes every section with exercises
    for (const { tag, section } of WIDGETS) {
      assert.equal(
        await view.page.locator(section ? `[data-section="${section}"] ${tag}` : tag).count(),
        section ? 1 : EXERCISE_SECTIONS.length,
        `${path}: <${tag}>`,
      );
    }
    await view.screenshot(path === ZH ? 'page-zh-top' : 'page-en-top');
    view.assertClean();
    await view.close();
  }
});

test('the language switch keeps the section being read and the widget settings', async () => {
  const view = await openReady(lab, ZH);
  const { page } = view;
  await page.locator('rl-vector-lab').getByLabel('输入向量 x', { exact: true }).fill('1, 2, 3, 4');
  await page.locator('rl-softcap-explorer').getByRole('button', { name: 'c = 50' }).click();
  await page
    .getByRole('navigation')
    .getByRole('link', { name: /^Soft-capping/ })
    .click();
  await eventually(
    () => headingTop(page, 'softcap'),
    (top) => top >= 0 && top < 200,
    'the contents link scrolls to the section',
  );
  await eventually(
    () => page.url(),
    (url) => url.includes('cap.cap=50') && url.includes('vec.x='),
    'state in the URL',
  );
  // Focus and Enter rather than click(): Playwright's pointer actions scroll a sticky element "into view",
  // which moves the page before the link reads where the reader is. The language menu opens first.
  await page.locator('[data-lang-menu] summary').focus();
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: 'English', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/en\/index\.html\?.*#softcap$/);
  await page.waitForFunction(() =>
    [...document.querySelectorAll('rl-vector-lab, rl-softcap-explorer')].every((el) => el.hasAttribute('data-ready')),
  );
  assert.equal(await page.locator('html').getAttribute('lang'), 'en');
  assert.equal(
    await page.locator('rl-vector-lab').getByLabel('Input vector x', { exact: true }).inputValue(),
    '1, 2, 3, 4',
  );
  assert.equal(await page.locator('rl-softcap-explorer').getByLabel('Cap c', { exact: true }).inputValue(), '50');
  await eventually(
    () => headingTop(page, 'softcap'),
    (top) => top >= 0 && top < 200,
    'the English page opens at the same section',
  );
  await eventually(
    () =>
      page
        .getByRole('navigation')
        .getByRole('link', { name: /^Soft-capping/ })
        .getAttribute('aria-current'),
    (v) => v === 'true',
    'contents mark the section',
  );

  await page.locator('[data-lang-menu] summary').focus();
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: '中文', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(
    (url) =>
      url.pathname.endsWith('/index.html') && !url.pathname.includes('/en/') && url.search && url.hash === '#softcap',
  ); // not the English page still
  assert.equal(await page.locator('html').getAttribute('lang'), 'zh-CN');
  await eventually(
    () => headingTop(page, 'softcap'),
    (top) => top >= 0 && top < 200,
    'and back again',
  );
  view.assertClean();
  await view.close();
});

test('the language menu lists every language, opens and closes from the keyboard, and closes on a click elsewhere', async () => {
  const { LANGUAGES } = await import('../../web/languages.js');
  const view = await openReady(lab, EN);
  const { page } = view;
  const summary = page.locator('[data-lang-menu] summary');
  const menu = page.locator('[data-lang-menu]');
  const isOpen = () => menu.evaluate((details) => details.open);
  assert.equal(await summary.getAttribute('aria-label'), 'Language: English');
  assert.deepEqual(
    await page
      .locator('[data-lang-link]')
      .evaluateAll((links) => links.map((a) => [a.dataset.langLink, a.textContent, a.lang])),
    LANGUAGES.map((row) => [row.code, row.name, row.htmlLang]),
  );
  assert.equal(await page.locator('[data-lang-link][aria-current="page"]').getAttribute('data-lang-link'), 'en');
  await summary.focus();
  await page.keyboard.press('Enter');
  assert.equal(await isOpen(), true, 'Enter opens it');
  await page.keyboard.press('Tab');
  assert.equal(
    await page.evaluate(() => document.activeElement.dataset.langLink),
    LANGUAGES[0].code,
    'Tab reaches its first link',
  );
  await page.keyboard.press('Escape');
  assert.equal(await isOpen(), false, 'Escape closes it');
  assert.equal(
    await page.evaluate(() => document.activeElement.localName),
    'summary',
    'and focus is back on its button',
  );
  await page.keyboard.press(' ');
  assert.equal(await isOpen(), true, 'Space opens it');
  await page.locator('article h2').first().click();
  assert.equal(await isOpen(), false, 'a click elsewhere closes it');
  view.assertClean();
  await view.close();
});

test('after a contents link, content growing above the section does not push it away', async () => {
  const view = await openReady(lab, EN);
  const { page } = view;
  await page
    .getByRole('navigation')
    .getByRole('link', { name: /^Soft-capping/ })
    .click();
  await eventually(
    () => headingTop(page, 'softcap'),
    (top) => top >= 0 && top < 200,
    'the contents link scrolls to the section',
  );
  await page.waitForTimeout(5000); // later than any fixed grace period would last
  // what a widget above does when its results arrive: it grows
  await page.evaluate(() => {
    const grown = document.createElement('div');
    document.getElementById('qk-norm').after(grown);
    grown.style.height = '600px';
  });
  await eventually(
    () => headingTop(page, 'softcap'),
    (top) => top >= 0 && top < 200,
    'the section stays in view',
  );
  // once the reader scrolls, the page is theirs
  await page.mouse.wheel(0, 400);
  await eventually(
    () => headingTop(page, 'softcap'),
    (top) => top < -200,
    'the reader scrolls on',
  );
  await page.evaluate(() => {
    document.getElementById('qk-norm').nextElementSibling.style.height = '900px';
  });
  await page.waitForTimeout(300);
  assert.ok((await headingTop(page, 'softcap')) < -100, 'no longer pulled back to the section');
  view.assertClean();
  await view.close();
});

test('focusing the header and the contents does not move the page', async () => {
  const view = await openReady(lab, EN);
  const { page } = view;
  await page.evaluate(() => document.getElementById('qk-norm').scrollIntoView({ behavior: 'instant' }));
  // The placement lab just above computes as it comes near and grows when its result arrives; scroll anchoring
  // then changes scrollY to keep the text in place. What the reader sees is the heading's place on screen.
  await page.locator('rl-placement-lab[data-status="done"]').waitFor();
  const before = await headingTop(page, 'qk-norm');
  for (const control of [
    page.locator('[data-lang-menu] summary'),
    page.getByRole('button', { name: 'Dark theme' }),
    page.getByRole('navigation').getByRole('link', { name: /^Soft-capping/ }),
  ]) {
    await control.focus();
    await page.waitForTimeout(400); // a smooth scroll would be under way by now
    assert.ok(Math.abs((await headingTop(page, 'qk-norm')) - before) <= 1, 'the page stays where the reader is');
  }
  view.assertClean();
  await view.close();
});

test('the contents follow scrolling', async () => {
  const view = await openReady(lab, EN);
  const { page } = view;
  const current = () =>
    page
      .locator('.toc a[aria-current="true"]')
      .getAttribute('href')
      .catch(() => null);
  for (const id of ['normalization', 'qk-norm', 'summary']) {
    await page.evaluate((target) => document.getElementById(target).scrollIntoView({ behavior: 'instant' }), id);
    await eventually(current, (href) => href === `#${id}`, `contents mark #${id}`);
  }
  view.assertClean();
  await view.close();
});

test('the theme toggle switches, is remembered, and the system preference applies (and is followed) when nothing is stored', async () => {
  const view = await openReady(lab, EN);
  const { page } = view;
  const toggle = page.getByRole('button', { name: 'Dark theme' });
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  const light = await background();
  await toggle.click();
  assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
  assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
  const dark = await background();
  assert.notEqual(dark, light);
  const luminance = (rgb) =>
    rgb
      .match(/\d+/g)
      .slice(0, 3)
      .map(Number)
      .reduce((a, b) => a + b, 0);
  assert.ok(luminance(dark) < 150 && luminance(light) > 600, `dark ${dark}, light ${light}`);
  await page.locator('rl-precision-lab').scrollIntoViewIfNeeded();
  await screenshotWidget(view, page.locator('rl-softcap-explorer'), 'softcap-explorer-dark');
  await screenshotWidget(view, page.locator('rl-vector-lab'), 'vector-lab-dark');
  const again = await reopen(view, page.url());
  assert.equal(await again.locator('html').getAttribute('data-theme'), 'dark', 'remembered in a new tab');
  await again.getByRole('button', { name: 'Dark theme' }).click();
  assert.equal(await again.locator('html').getAttribute('data-theme'), 'light');
  assert.equal(await again.getByRole('button', { name: 'Dark theme' }).getAttribute('aria-pressed'), 'false');
  view.assertClean();
  await view.close();

  const system = await openReady(lab, EN, { colorScheme: 'dark' });
  const systemPage = system.page;
  const theme = () => systemPage.locator('html').getAttribute('data-theme');
  const systemToggle = systemPage.getByRole('button', { name: 'Dark theme' });
  const systemLuminance = async () =>
    luminance(await systemPage.evaluate(() => getComputedStyle(document.body).backgroundColor));
  assert.equal(await systemPage.evaluate(() => localStorage.getItem('residual-lab-theme')), null, 'no stored choice');
  assert.equal(await theme(), 'dark', 'the system preference decides');
  assert.equal(await systemToggle.getAttribute('aria-pressed'), 'true');
  assert.ok((await systemLuminance()) < 150, 'dark from the system');
  await system.screenshot('page-en-system-dark');

  await systemPage.emulateMedia({ colorScheme: 'light' });
  await eventually(theme, (value) => value === 'light', 'the page follows a change of the system preference');
  assert.equal(await systemToggle.getAttribute('aria-pressed'), 'false');
  assert.ok((await systemLuminance()) > 600, 'light from the system');

  await systemToggle.click();
  assert.equal(await theme(), 'dark');
  await systemPage.emulateMedia({ colorScheme: 'dark' });
  await systemPage.emulateMedia({ colorScheme: 'light' });
  // Media-query change events fire in the rendering step, before animation frames.
  await systemPage.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
  assert.equal(await theme(), 'dark', "the reader's choice outlasts a change of the system preference");
  assert.ok((await systemLuminance()) < 150, 'still dark');
  // The widget follows the page's color-scheme; its dark surface is the page's --rl-surface, both resolved to rgb.
  const widgetSurface = await systemPage
    .locator('rl-vector-lab')
    .evaluate((el) => getComputedStyle(el).backgroundColor);
  const pageSurface = await systemPage.evaluate(() => {
    const probe = document.body.appendChild(document.createElement('div'));
    probe.style.backgroundColor = 'var(--rl-surface)';
    const color = getComputedStyle(probe).backgroundColor;
    probe.remove();
    return color;
  });
  assert.equal(widgetSurface, pageSurface, "the widgets take the page's theme, not the system's");
  system.assertClean();
  await system.close();
});

test('the decoder widgets are real widgets (no placeholder left), titled in the page language', async () => {
  for (const [path, script] of [
    [EN, /^[\x20-\x7E’–:,]+$/],
    [ZH, /[\u4e00-\u9fff]/],
  ]) {
    const view = await openReady(lab, path);
    for (const tag of WORKER_WIDGETS) {
      const widget = view.page.locator(tag);
      assert.equal(await widget.getByRole('note').count(), 0, `${path} <${tag}> is not a placeholder`);
      assert.match(await textOf(widget.getByRole('heading', { level: 3 })), script, `${path} <${tag}> title`);
    }
    view.assertClean();
    await view.close();
  }
});

test('a phone shows the text without sideways scrolling, and print hides the controls', async () => {
  const view = await openReady(lab, ZH, { viewport: { width: 375, height: 740 } });
  const { page } = view;
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the phone`);
  const contents = page.getByRole('navigation', { name: '本章目录' });
  assert.equal(
    await contents.getByRole('link', { name: '小结' }).isVisible(),
    false,
    'contents start folded on a phone',
  );
  await view.screenshot('page-zh-phone');
  await contents.locator('summary').click();
  assert.ok(await contents.getByRole('link', { name: '小结' }).isVisible(), 'and unfold on demand');
  await screenshotWidget(view, page.locator('rl-vector-lab'), 'vector-lab-phone');
  await page.emulateMedia({ media: 'print' });
  assert.equal(await page.locator('.site-header').isVisible(), false);
  assert.equal(await page.locator('.toc').isVisible(), false);
  assert.ok(await page.locator('article h2#summary').isVisible());
  await page.emulateMedia({ media: 'screen' });
  view.assertClean();
  await view.close();
});

test('a widget embedded alone in another page works with one script and one tag', async () => {
  const view = await openReady(lab, 'embed-example.html');
  const widget = view.page.locator('rl-vector-lab');
  // x="3, 4" eps="1e-6": x / sqrt(12.5 + 1e-6)
  await expectText(
    widget.getByLabel('RMSNorm output', { exact: true }),
    '[0.849, 1.131]',
    "embedded lab computes its attributes' example",
  );
  await view.screenshot('embed-example', {
    screenshot: (options) => view.page.screenshot({ ...options, fullPage: true }),
  });
  await widget.getByLabel('Input vector x', { exact: true }).fill('2, -1, 3, 0');
  await eventually(
    () => view.page.url(),
    (url) => url.includes('demo.x=2%2C+-1%2C+3%2C+0'),
    'state-key names the URL prefix',
  );
  await expectText(
    widget.getByLabel('RMSNorm output', { exact: true }),
    '[1.069, -0.535, 1.604, 0]',
    'the worked example',
  );
  const zh = view.page.locator('rl-softcap-explorer');
  assert.equal(
    await zh.getByLabel('上限 c', { exact: true }).inputValue(),
    '20',
    'lang from the wrapper, cap from the attribute',
  );
  await zh.getByRole('button', { name: 'c = 50' }).click();
  await view.page.waitForTimeout(500); // URL writes are debounced by 200 ms
  assert.ok(!view.page.url().includes('cap.'), 'url-state="off" leaves the address alone');
  view.assertClean();
  await view.close();
});
