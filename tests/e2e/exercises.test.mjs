// The self-check exercises and the forward reader in the served chapter. The right answers are computed through the
// public API of the same build, loaded in node (each exercise's answer function, the engine's option tables), never
// typed here; the served site holds only bundles, so the exercise and snippet tables come from their sources.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { EN, ZH, eventually, expectText, openReady, screenshotWidget, textOf } from './widget-helpers.mjs';
import { stringsOf } from '../../web/languages.js';
import { EXERCISES } from '../../web/components/self-check/exercises.js';
import { SNIPPETS } from '../../web/components/shared/forward-snippets.js';
import { load } from '../../dist/lib/residual-lab.js';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

const NEW_TAGS = ['rl-forward-reader', 'rl-self-check'];

async function openChapter(path, query = '') {
  const view = await openReady(lab, `${path}${query}`);
  await view.page.waitForFunction(
    (tags) => tags.every((tag) => [...document.querySelectorAll(tag)].every((el) => el.hasAttribute('data-ready'))),
    NEW_TAGS,
  );
  return view;
}

/** Screenshot once the page has stopped growing (widgets above may still be drawing, which moves the target). */
async function shoot(view, locator, name) {
  await eventually(
    async () => {
      const before = await view.page.evaluate(() => document.documentElement.scrollHeight);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return before === (await view.page.evaluate(() => document.documentElement.scrollHeight));
    },
    Boolean,
    'the page height settles',
    10000,
  );
  await screenshotWidget(view, locator, name);
}

/** Every exercise's right answer and a wrong one, from the exercise table and the lab. */
async function computedAnswers() {
  const { allowedError } = await import('../../web/components/self-check/judge.js');
  const api = await load();
  return Object.fromEntries(
    EXERCISES.map((exercise) => {
      const right = exercise.answer(api);
      const wrong =
        exercise.kind === 'number'
          ? right + Math.max(1, 10 * allowedError(exercise, right))
          : exercise.choices.find((choice) => choice.value !== right).value;
      return [exercise.id, { right, wrong }];
    }),
  );
}

async function answer(page, item, exercise, value) {
  if (exercise.kind === 'number') {
    const input = item.getByLabel(/Your answer|你的答案/);
    await input.fill(String(value));
    await input.press('Enter');
  } else {
    const radio = item.locator(`input[value="${value}"]`);
    await radio.check();
    await radio.press('Enter');
  }
}

test('self-check: every exercise answered empty, absurd, wrong twice and right, by keyboard', async () => {
  const view = await openChapter(EN);
  const { page } = view;
  const s = stringsOf('en', 'rl-self-check');
  const answers = await computedAnswers();
  assert.equal(Object.keys(answers).length, EXERCISES.length);
  for (const exercise of EXERCISES) {
    const item = page.locator(`rl-self-check[set="${exercise.section}"] li[data-exercise="${exercise.id}"]`);
    const feedback = item.locator('.sc-feedback');
    const hint = item.locator('.sc-hint');
    const solution = item.locator('.sc-solution');
    const { right, wrong } = answers[exercise.id];

    await item.getByRole('button', { name: s.check }).click();
    await expectText(feedback, exercise.kind === 'number' ? s.emptyNumber : s.emptyChoice, `${exercise.id} empty`);
    if (exercise.kind === 'number') {
      for (const absurd of ['abc', '1e999', '   ']) {
        await answer(page, item, exercise, absurd);
        const text = await textOf(feedback);
        const expected = { abc: s.invalid('not a number'), '1e999': s.invalid(s.tooLarge), '   ': s.emptyNumber }[
          absurd
        ];
        assert.equal(text, expected, `${exercise.id} "${absurd}"`);
        assert.equal(await item.locator('input').getAttribute('aria-invalid'), String(absurd.trim() !== ''));
      }
    }
    assert.equal(await hint.isVisible(), false, `${exercise.id}: no hint before a wrong answer`);

    await answer(page, item, exercise, wrong);
    await expectText(feedback, s.wrong, `${exercise.id} first wrong`);
    assert.equal(await hint.isVisible(), true, `${exercise.id}: hint after one wrong answer`);
    assert.equal(await solution.isVisible(), false, `${exercise.id}: no solution after one wrong answer`);
    assert.ok((await textOf(hint)).includes(stringsOf('en', 'exercises')[exercise.id].hint));

    await answer(page, item, exercise, wrong);
    await expectText(feedback, s.wrongAgain, `${exercise.id} second wrong`);
    assert.equal(await solution.isVisible(), true, `${exercise.id}: solution after two wrong answers`);

    await answer(page, item, exercise, right);
    await expectText(feedback, s.right, `${exercise.id} right`);
    assert.equal(await item.getAttribute('data-verdict'), 'right');
  }
  // The worked numbers in the solutions are the computed ones.
  await expectText(
    page.locator('li[data-exercise="llama-norm-params"] .sc-solution'),
    'Solution: (32 × 2 + 1) × 4096 = 65 × 4096 = 266,240: about 0.003% of the 8 billion.',
  );
  assert.match(await textOf(page.locator('li[data-exercise="gradient-decay"] .sc-solution')), /0\.8³² ≈ 7\.92 × 10⁻⁴/);
  assert.match(
    await textOf(page.locator('li[data-exercise="rmsnorm-by-hand"] .sc-solution')),
    /2 \/ 1\.871 = 1\.069\./,
  );
  view.assertClean();
  await view.close();
});

test('self-check in Chinese, announced politely, and a tag naming no set says so', async () => {
  const view = await openChapter(ZH);
  const { page } = view;
  const s = stringsOf('zh', 'rl-self-check');
  const widget = page.locator('rl-self-check[set="softcap"]');
  await expectText(widget.locator('h3'), s.title);
  const item = widget.locator('li[data-exercise="softcap-50"]');
  assert.equal(await item.locator('.sc-feedback').getAttribute('aria-live'), 'polite');
  const input = item.getByLabel(s.yourAnswer);
  await input.fill('abc');
  await input.press('Enter');
  await expectText(item.locator('.sc-feedback'), s.invalid('不是数字'));
  await input.fill('48.2');
  await input.press('Enter');
  await expectText(item.locator('.sc-feedback'), s.right);
  assert.match(await textOf(item.locator('.sc-solution')), /50 · tanh\(2\) = 48\.2：/);
  await shoot(view, widget, 'self-check-zh');

  const notice = await page.evaluate(async () => {
    const element = document.createElement('rl-self-check');
    element.setAttribute('set', 'no-such-section');
    document.querySelector('main, body').append(element);
    for (let i = 0; i < 100 && !element.shadowRoot?.querySelector('.notice:not([hidden])'); i++)
      await new Promise((r) => setTimeout(r, 50));
    return element.shadowRoot.querySelector('.notice:not([hidden])')?.textContent;
  });
  assert.match(notice, /属性 set="no-such-section" 无法使用/); // a setting like any other: the attribute notice
  view.assertClean();
  await view.close();
});

test('self-check: an answer typed with a Chinese IME (full-width digits) is read as the vector fields read it', async () => {
  const view = await openChapter(ZH);
  const { page } = view;
  const s = stringsOf('zh', 'rl-self-check');
  // 0.8^32 = 7.92e-4, within the exercise's 2%
  const item = page.locator('rl-self-check li[data-exercise="gradient-decay"]');
  const input = item.getByLabel(s.yourAnswer);
  await input.fill('０．０００８');
  await input.press('Enter');
  await expectText(item.locator('.sc-feedback'), s.right, 'full-width decimal');
  await input.fill('８ｅ－４');
  await input.press('Enter');
  await expectText(item.locator('.sc-feedback'), s.right, 'full-width exponent');
  // the vector lab on the same page reads "2，-1，3，0" (full-width commas) as the worked example
  const vector = page.locator('rl-vector-lab').first();
  await vector.locator('#field-x').fill('２，－１，３，０');
  await expectText(
    vector.locator('output[aria-labelledby="row-rms"]'),
    '[1.069, -0.535, 1.604, 0]',
    'full-width vector',
  );
  view.assertClean();
  await view.close();
});

test('self-check screenshot in English', async () => {
  const view = await openChapter(EN);
  const widget = view.page.locator('rl-self-check[set="why-residuals"]');
  const item = widget.locator('li[data-exercise="gradient-decay"]');
  const input = item.getByLabel('Your answer');
  for (const typed of ['0.5', '0.1']) {
    await input.fill(typed);
    await input.press('Enter');
  }
  await expectText(item.locator('.sc-feedback'), stringsOf('en', 'rl-self-check').wrongAgain);
  await shoot(view, widget, 'self-check-en');
  view.assertClean();
  await view.close();
});

/** Each snippet's right placement (its config through the engine's option table) and decisive lines. */
async function snippetFacts() {
  const logic = await import('../../web/components/shared/forward-logic.js');
  const tables = (await load()).describe();
  return Object.fromEntries(
    SNIPPETS.map((snippet) => [
      snippet.id,
      {
        right: logic.expectedPlacement(snippet, tables),
        choices: logic.placementRow(tables).choices,
        decisive: logic.decisiveLines(snippet),
        formulas: logic.placementFormulas(tables),
      },
    ]),
  );
}

test('forward reader: each snippet answered wrong twice (lines marked, then revealed) and right; the snippet is in the link', async () => {
  const view = await openChapter(EN);
  const { page } = view;
  const s = stringsOf('en', 'rl-forward-reader');
  const widget = page.locator('rl-forward-reader');
  const facts = await snippetFacts();
  const feedback = widget.locator('.fr-feedback');
  for (const snippet of SNIPPETS) {
    const { right, choices, decisive } = facts[snippet.id];
    await widget.getByLabel(snippet.model, { exact: true }).check();
    await expectText(widget.locator('.fr-code figcaption'), s.codeLabel(snippet.model));
    assert.equal(await widget.locator('.fr-line').count(), snippet.lines.length);
    assert.equal(
      await widget.locator('.block-diagram').getAttribute('data-placement'),
      right,
      `${snippet.id}: the diagram draws the config`,
    );
    assert.equal(
      await widget.locator('.block-diagram').isVisible(),
      false,
      `${snippet.id}: the diagram, which shows the layout, waits for the answer`,
    );
    assert.equal(await widget.locator('.fr-diagram-wait').isVisible(), true);

    await widget.getByRole('button', { name: s.check }).click();
    await expectText(feedback, s.pickFirst);

    const wrong = choices.find((choice) => choice !== right);
    const wrongRadio = widget.locator(`input[name="answer"][value="${wrong}"]`);
    await wrongRadio.check();
    await wrongRadio.press('Enter');
    await expectText(
      feedback,
      `${s.wrong(s.placementNames[wrong])} ${s.wrongDetail(facts[snippet.id].formulas[wrong])}`,
      `${snippet.id} wrong`,
    );
    const marked = await widget
      .locator('.fr-line.fr-decisive')
      .evaluateAll((lines) => lines.map((l) => Number(l.dataset.index)));
    assert.deepEqual(marked, decisive, `${snippet.id}: the deciding lines are marked after a wrong answer`);
    assert.equal(await widget.locator('.fr-note').isVisible(), false);
    assert.equal(await widget.locator('.fr-role:not([hidden])').count(), 0, 'roles wait for the reveal');

    await wrongRadio.press('Enter');
    assert.ok(
      (await textOf(feedback)).endsWith(
        s.revealed(snippet.model, s.placementNames[right], facts[snippet.id].formulas[right]),
      ),
      `${snippet.id} revealed`,
    );
    await expectText(widget.locator('.fr-note'), s.notes[snippet.id]);
    assert.equal(await widget.locator('.block-diagram').isVisible(), true, `${snippet.id}: revealed with the answer`);
    assert.equal(await widget.locator('.fr-diagram-wait').isVisible(), false);
    assert.equal(await widget.locator('.fr-role:not([hidden])').count(), snippet.lines.filter((l) => l.steps).length);

    const rightRadio = widget.locator(`input[name="answer"][value="${right}"]`);
    await rightRadio.check();
    await rightRadio.press('Enter');
    await expectText(
      feedback,
      `${s.right(snippet.model, s.placementNames[right])} ${s.rightDetail(facts[snippet.id].formulas[right])}`,
      `${snippet.id} right`,
    );
    assert.equal(await feedback.getAttribute('data-verdict'), 'right');
    assert.match(await widget.locator('.block-diagram').getAttribute('aria-label'), new RegExp(`placement ${right}`));
    await eventually(
      () => page.url(),
      (url) =>
        snippet.id === SNIPPETS[0].id ? !url.includes('fwd.snippet') : url.includes(`fwd.snippet=${snippet.id}`),
      `${snippet.id} in the URL`,
    );
  }
  view.assertClean();
  await view.close();
});

test('forward reader: a line and its diagram element light up together, by hover and by keyboard focus', async () => {
  const view = await openChapter(EN, '?fwd.snippet=llama');
  const { page } = view;
  const widget = page.locator('rl-forward-reader');
  assert.equal(await widget.getByLabel('Llama', { exact: true }).isChecked(), true, 'the link chose Llama');
  const answer = async (placement) => {
    const radio = widget.locator(`input[name="answer"][value="${placement}"]`);
    await radio.check();
    await radio.press('Enter');
  };
  await answer('pre'); // the diagram appears with the answer
  await page.mouse.move(0, 0); // the pointer left on the radio would rest on a linked part of the grown layout
  const trapLine = widget.locator('.fr-line', { hasText: 'post_attention_layernorm' });
  const mlpNorm = widget.locator('[data-norm="mlp-before"]');
  await trapLine.focus();
  assert.equal(
    await mlpNorm.evaluate((el) => el.classList.contains('fr-lit')),
    true,
    "Llama's post_attention_layernorm is the pre-MLP norm",
  );
  assert.equal(
    await widget.locator('[data-norm="attn-before"]').evaluate((el) => el.classList.contains('fr-lit')),
    false,
  );
  await page.keyboard.press('Tab'); // the next linked line: self.mlp
  assert.equal(await widget.locator('[data-sublayer="mlp"]').evaluate((el) => el.classList.contains('fr-lit')), true);
  assert.equal(await mlpNorm.evaluate((el) => el.classList.contains('fr-lit')), false);

  await widget.locator('[data-add="attn"]').hover();
  const lit = await widget
    .locator('.fr-line.fr-lit')
    .evaluateAll((lines) => lines.map((l) => l.querySelector('.fr-text').textContent.trim()));
  assert.deepEqual(lit, ['h = residual + h'], 'the attention add is one line');
  await widget.locator('[data-sublayer="attn"]').focus();
  assert.deepEqual(
    await widget
      .locator('.fr-line.fr-lit')
      .evaluateAll((lines) => lines.map((l) => l.querySelector('.fr-text').textContent.trim())),
    ['h = self.self_attn(h, pos)'],
  );

  // Gemma 2: the same name is attention's output norm.
  await widget.getByLabel('Gemma 2', { exact: true }).check();
  await answer('sandwich');
  await page.mouse.move(0, 0);
  await widget.locator('.fr-line', { hasText: 'post_attention_layernorm' }).hover();
  assert.equal(
    await widget.locator('[data-norm="attn-after"]').evaluate((el) => el.classList.contains('fr-lit')),
    true,
  );
  await shoot(view, widget, 'forward-reader-en');
  view.assertClean();
  await view.close();
});

test('forward reader in Chinese; a link with an unknown snippet falls back with a notice', async () => {
  const view = await openChapter(ZH, '?fwd.snippet=nonsense');
  const { page } = view;
  const s = stringsOf('zh', 'rl-forward-reader');
  const widget = page.locator('rl-forward-reader');
  await expectText(widget.locator('h3'), s.title);
  assert.match(await textOf(widget.locator('.notice')), /fwd\.snippet="nonsense"/);
  assert.equal(await widget.getByLabel(SNIPPETS[0].model, { exact: true }).isChecked(), true);
  await widget.getByLabel('Gemma 2', { exact: true }).check();
  const radio = widget.locator('input[name="answer"][value="sandwich"]');
  await radio.check();
  await radio.press('Enter');
  await expectText(
    widget.locator('.fr-feedback'),
    '答对了：Gemma 2 是三明治。 引擎计算的是 h ← h + Norm(F(Norm(h)))。',
  );
  await shoot(view, widget, 'forward-reader-zh');
  view.assertClean();
  await view.close();
});
