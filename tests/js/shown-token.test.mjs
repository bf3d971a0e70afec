// A logit-lens token is shown with its whitespace visible: a token of eight spaces or a tab is not a blank cell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shownToken } from '../../web/components/checkpoint-probe/compute.js';

test('every whitespace character of a token is shown as a visible mark', () => {
  assert.equal(shownToken('        '), '␣␣␣␣␣␣␣␣');
  assert.equal(shownToken(' the'), '␣the');
  assert.equal(shownToken('\n\n'), '↵↵');
  assert.equal(shownToken('\t\tif'), '⇥⇥if');
  assert.equal(shownToken('\r\n'), '␍↵');
  // A no-break space and the ideographic space of Chinese text are as blank on screen as a space.
  assert.equal(shownToken('\u00a0\u3000'), '␣␣');
  assert.equal(shownToken('年假'), '年假');
});
