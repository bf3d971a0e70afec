// The widget style sheet falls back to the page's fonts when a host page sets none: the two stacks are one fact
// written in two files (a widget's shadow root cannot read page.css), so they must agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const squeeze = (text) => text.replace(/\s+/g, ' ').replace(/,\s*/g, ', ').trim();

test("a widget's fallback fonts are the page's font stacks", () => {
  const page = read('web/styles/page.css');
  const widget = read('web/components/shared/widget.css');
  for (const [pageName, widgetName] of [
    ['--rl-font', '--font'],
    ['--rl-mono', '--mono'],
  ]) {
    const onPage = page.match(new RegExp(`${pageName}:([^;]+);`))?.[1];
    const fallback = widget.match(new RegExp(`${widgetName}: var\\(\\s*${pageName},([^)]+)\\)`))?.[1];
    assert.ok(onPage && fallback, `${pageName} in page.css and ${widgetName}'s fallback in widget.css`);
    assert.equal(squeeze(fallback), squeeze(onPage), `${widgetName} falls back to page.css's ${pageName}`);
  }
});
