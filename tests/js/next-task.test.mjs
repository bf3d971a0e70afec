// nextTask (web/lib/next-task.js), the one way the lab's loading, the widgets' definitions and their first drawings
// give the browser a turn: it resolves in a later task, after the timers already set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextTask } from '../../web/lib/next-task.js';

test('nextTask resolves in a later task, after a timer set before it', async () => {
  const order = [];
  setTimeout(() => order.push('timer set before'), 0);
  const done = nextTask().then(() => order.push('nextTask'));
  queueMicrotask(() => order.push('microtask'));
  order.push('same task');
  await done;
  assert.deepEqual(order, ['same task', 'microtask', 'timer set before', 'nextTask']);
});
