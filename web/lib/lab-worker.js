// Module worker that runs lab calls off the main thread (worker-client.js is the other end).
// Requests:
//   { init: { flavour, module } }     the page's compiled WebAssembly.Module (or init: null: compile here); the
//                                     lab calls that arrive before it wait for it
//   { id, method: 'experiments.warmup', args: [options], progress: true }   a lab call (names: worker-methods.js)
//   { id, handle: 7, method: 'forward', args: [tokens] }                   a call on an object kept here
//   { id, handle: 7, method: 'run', args: [ids, options], progress: true } with progress (progressArgs)
// Replies, by id:
//   { id, progress }                          a progress report (only when the request asked for them)
//   { id, result }                            typed arrays in it are transferred, not copied (except a kept
//                                             result of a handle, see freshResults)
//   { id, handle: { id, kind, data, state } } the result stays here; the page gets its plain fields
//   { id, result, state }                     a handle call, with the handle's changing fields after it
//   { id, error: { name, message, code, position? } }
// Arguments arrive as the page gave them (structured clone); nothing is added to them except, for a method
// that reports progress, the `{ onProgress }` object in the argument position its table entry names.
import { load } from './residual-lab.js';
import {
  HANDLE_KINDS,
  METHODS,
  errorFields,
  isHandleMethod,
  methodEntry,
  resolveMethod,
  transferables,
} from './worker-methods.js';

let startLab;
const labReady = new Promise((resolve) => {
  startLab = resolve;
});
labReady.catch(() => {}); // a failed load is reported to each call that needs the lab
const handles = new Map(); // id -> { kind, object }
let nextHandle = 1;

class ProtocolError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'ResidualLabError';
    this.code = code;
  }
}

const pick = (object, keys) => Object.fromEntries(keys.map((key) => [key, object[key]]));

function withProgress(entry, args, id) {
  const at = entry.progressArg;
  const given = args[at];
  if (given !== undefined && given !== null && (typeof given !== 'object' || Array.isArray(given))) return args; // the API names the problem
  const copy = args.slice();
  while (copy.length < at) copy.push(undefined);
  copy[at] = {
    ...(given ?? {}),
    onProgress: (progress) => {
      self.postMessage({ id, progress });
    },
  };
  return copy;
}

async function runLabCall({ id, method, args, progress }) {
  const entry = methodEntry(method);
  if (!entry) {
    throw new ProtocolError(
      `the lab has no method ${JSON.stringify(method)} (known: ${Object.keys(METHODS).join(', ')})`,
      'unknown_method',
    );
  }
  const fn = resolveMethod(await labReady, method);
  if (!fn) throw new ProtocolError(`this build of the lab has no ${method}`, 'unavailable');
  const callArgs = progress && entry.progressArg !== undefined ? withProgress(entry, args, id) : args;
  const result = await fn(...callArgs);
  if (!entry.returns) return { result };
  const kind = HANDLE_KINDS[entry.returns];
  const handleId = nextHandle++;
  handles.set(handleId, { kind: entry.returns, object: result });
  return {
    handle: { id: handleId, kind: entry.returns, data: pick(result, kind.data), state: pick(result, kind.state) },
  };
}

async function runHandleCall({ id, handle, method, args, progress }) {
  const held = handles.get(handle);
  if (!held) throw new ProtocolError(`object ${handle} does not exist in the lab worker (disposed?)`, 'disposed');
  if (!isHandleMethod(held.kind, method)) {
    const known = [...HANDLE_KINDS[held.kind].methods, 'dispose'].join(', ');
    throw new ProtocolError(
      `a ${held.kind} has no method ${JSON.stringify(method)} (known: ${known})`,
      'unknown_method',
    );
  }
  if (method === 'dispose') {
    handles.delete(handle);
    held.object.dispose();
    return { result: undefined };
  }
  const kind = HANDLE_KINDS[held.kind];
  const at = kind.progressArgs?.[method];
  const callArgs = progress && at !== undefined ? withProgress({ progressArg: at }, args, id) : args;
  const result = await held.object[method](...callArgs);
  return { result, state: pick(held.object, kind.state), transfer: kind.freshResults };
}

function reply(id, { transfer = true, ...message }) {
  try {
    self.postMessage({ id, ...message }, transfer ? transferables(message.result) : []);
  } catch (error) {
    // A buffer that cannot be transferred (a view on WASM memory) is copied instead; a value that cannot be
    // cloned at all is an error of its own.
    try {
      self.postMessage({ id, ...message });
    } catch {
      self.postMessage({
        id,
        error: errorFields(
          new ProtocolError(`the result cannot be sent to the page: ${error.message}`, 'not_cloneable'),
        ),
      });
    }
  }
}

self.onmessage = async ({ data }) => {
  if (data && 'init' in data && data.id === undefined) {
    startLab(data.init ? load({ flavour: data.init.flavour, module: data.init.module }) : load());
    return;
  }
  const { id } = data ?? {};
  try {
    if (!Array.isArray(data.args))
      throw new ProtocolError("args must be an array of the call's arguments", 'invalid_request');
    reply(id, data.handle !== undefined ? await runHandleCall(data) : await runLabCall(data));
  } catch (error) {
    self.postMessage({ id, error: errorFields(error) });
  }
};
