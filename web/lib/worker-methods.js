// What the lab worker (lab-worker.js) may run: every function of the lab object by its dotted name (api.js's
// LAB_API, without the parts), and the objects that cannot be copied to the page (a decoder, a warmup run), which
// stay in the worker behind an id (HANDLE_KINDS). Names are looked up as own properties of these frozen tables,
// never along a prototype chain, so 'constructor', '__proto__' or 'toString' are unknown methods.
// tests/js/worker-methods.test.mjs checks that the tables list every function the lab object and its objects expose.
import { HANDLE_KINDS, LAB_API } from './api.js';

export { HANDLE_KINDS };

/** LAB_API's rows without their part: { progressArg?, returns? } (api.js says what each means). */
export const METHODS = Object.freeze(
  Object.fromEntries(Object.entries(LAB_API).map(([name, { part, ...entry }]) => [name, Object.freeze(entry)])),
);

const own = (table, key) => typeof key === 'string' && Object.prototype.hasOwnProperty.call(table, key);

/** The table entry of `method`, or undefined when the worker does not run it. */
export function methodEntry(method) {
  return own(METHODS, method) ? METHODS[method] : undefined;
}

/** The lab function named by a METHODS key, bound to its namespace ('experiments.warmup' -> lab.experiments). */
export function resolveMethod(lab, method) {
  const parts = method.split('.');
  let owner = lab;
  for (const part of parts.slice(0, -1)) owner = own(owner, part) ? owner[part] : undefined;
  const fn = owner && own(owner, parts.at(-1)) ? owner[parts.at(-1)] : undefined;
  return typeof fn === 'function' ? fn.bind(owner) : undefined;
}

/** Whether `method` is one a handle of `kind` answers (dispose included). */
export function isHandleMethod(kind, method) {
  return method === 'dispose' || (own(HANDLE_KINDS, kind) && HANDLE_KINDS[kind].methods.includes(method));
}

/** The ArrayBuffers behind the typed arrays in `value` (each once), to transfer rather than copy. */
export function transferables(value, found = new Set()) {
  if (ArrayBuffer.isView(value)) found.add(value.buffer);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) transferables(v, found);
  return [...found];
}

/** The fields of an error that cross to the page: name, message, code and, for typed text, position. */
export function errorFields(error) {
  const fields = {
    name: error?.name ?? 'Error',
    message: error?.message ?? String(error),
    code: error?.code ?? 'internal_error',
  };
  if (error?.position !== undefined) fields.position = error.position;
  return fields;
}
