// nextTask and nextFrame (web/lib/next-task.js), the ways the lab's loading, the widgets' definitions and their first drawings
// give the browser a turn: a later task, after the timers already set, or the task after the next frame.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextFrame, nextTask } from '../../web/lib/next-task.js';

test('nextTask resolves in a later task, after a timer set before it', async () => {
  const order = [];
  setTimeout(() => order.push('timer set before'), 0);
  const done = nextTask().then(() => order.push('nextTask'));
  queueMicrotask(() => order.push('microtask'));
  order.push('same task');
  await done;
  assert.deepEqual(order, ['same task', 'microtask', 'timer set before', 'nextTask']);
});

test('nextFrame waits for a frame and then a task; with no frames (node, a hidden tab) it is nextTask', async () => {
  const order = [];
  setTimeout(() => order.push('timer set before'), 0);
  await nextFrame().then(() => order.push('nextFrame'));
  assert.deepEqual(order, ['timer set before', 'nextFrame']);

  const frameCallbacks = [];
  globalThis.requestAnimationFrame = (callback) => frameCallbacks.push(callback);
  globalThis.document = { visibilityState: 'visible' };
  try {
    let resolved = false;
    const frame = nextFrame().then(() => (resolved = true));
    await nextTask();
    assert.equal(resolved, false, 'no frame yet: still waiting');
    assert.equal(frameCallbacks.length, 1);
    frameCallbacks[0]();
    assert.equal(resolved, false, 'the frame callback itself does not resolve: the task after it does');
    await frame;
    // A frame that never comes (hidden after the request): a timer resolves it.
    const started = performance.now();
    await nextFrame();
    assert.ok(performance.now() - started >= 90, 'waited for the fallback timer');
    globalThis.document = { visibilityState: 'hidden' };
    await nextFrame(); // a hidden document asks for no frame
    assert.equal(frameCallbacks.length, 2);
  } finally {
    delete globalThis.requestAnimationFrame;
    delete globalThis.document;
  }
});

test('nextFrame releases one caller per frame, in the order they asked; a frame that never comes releases all', async () => {
  const frameCallbacks = [];
  globalThis.requestAnimationFrame = (callback) => frameCallbacks.push(callback);
  globalThis.document = { visibilityState: 'visible' };
  try {
    const order = [];
    const pieces = ['chapter turn', 'widget drawing', 'chart'].map((name) => nextFrame().then(() => order.push(name)));
    const frame = async () => {
      assert.equal(frameCallbacks.length, 1, 'one frame asked for at a time');
      frameCallbacks.shift()();
      await nextTask();
      await nextTask();
    };
    await frame();
    assert.deepEqual(order, ['chapter turn'], 'the first frame releases the first caller only');
    const late = nextFrame().then(() => order.push('asked later'));
    await frame();
    assert.deepEqual(order, ['chapter turn', 'widget drawing']);
    await frame();
    await frame();
    assert.deepEqual(order, ['chapter turn', 'widget drawing', 'chart', 'asked later']);
    await Promise.all([...pieces, late]);
    assert.equal(frameCallbacks.length, 0, 'no frame asked for once nobody waits');

    // A piece for an element out of the document lays nothing out: it does not use up the frame.
    const removed = { isConnected: false };
    const inPage = { isConnected: true };
    const afterRemoval = [];
    const three = [
      nextFrame(removed).then(() => afterRemoval.push('removed widget')),
      nextFrame(inPage).then(() => afterRemoval.push('widget in the page')),
      nextFrame(inPage).then(() => afterRemoval.push('next widget')),
    ];
    await frame();
    assert.deepEqual(afterRemoval, ['removed widget', 'widget in the page'], 'released together: one piece to lay out');
    await frame();
    await Promise.all(three);
    assert.deepEqual(afterRemoval, ['removed widget', 'widget in the page', 'next widget']);

    // A frame that is late (a throttled iframe): the fallback timer releases the next caller, and pacing goes on.
    const released = [];
    const slow = [1, 2].map((n) => nextFrame().then(() => released.push(n)));
    let started = performance.now();
    await slow[0];
    assert.ok(performance.now() - started >= 90, 'released by the fallback timer');
    assert.deepEqual(released, [1], 'one caller per missed frame');
    frameCallbacks.shift()(); // the late frame of the first request comes after all: it releases nobody
    await nextTask();
    await nextTask();
    assert.deepEqual(released, [1]);
    frameCallbacks.shift()();
    await slow[1];
    assert.deepEqual(released, [1, 2]);

    // The tab is hidden with callers waiting: no frame comes, and the fallback timer releases them all at once.
    const stuck = [nextFrame(), nextFrame(), nextFrame()];
    globalThis.document.visibilityState = 'hidden';
    started = performance.now();
    await Promise.all(stuck);
    assert.ok(performance.now() - started >= 90, 'released by the fallback timer');
    assert.equal(frameCallbacks.length, 1, 'the one frame asked for never came');
  } finally {
    delete globalThis.requestAnimationFrame;
    delete globalThis.document;
  }
});
