// The files a reader hands to lab.openCheckpoint: a map of names to File / Blob, (node) a path, ArrayBuffer,
// Uint8Array (or, for JSON files, strings). The JSON files are read whole; a weights file is a source read by
// byte ranges when a run needs them (weightSource), so a File stays on disk and only the tensors in use are in
// memory.
import { ResidualLabError } from '../errors.js';
import { MAX_CONFIG_CHARS } from '../inspect-config.js';
import { importNodeModule } from '../node-module.js';

const MAX_JSON_BYTES = 64 << 20; // an index.json or tokenizer.json (Qwen's is 11 MB)

/** `files` as a Map(name -> entry); accepts a plain object, a Map, or a FileList / array of File. */
export function fileMap(files) {
  if (files instanceof Map) return new Map(files);
  if (files && typeof files[Symbol.iterator] === 'function' && typeof files !== 'string') {
    return new Map([...files].map((file) => [file?.name, file]));
  }
  if (files && typeof files === 'object') return new Map(Object.entries(files));
  throw new ResidualLabError(
    'openCheckpoint takes the files of a checkpoint: { "config.json": ..., "model.safetensors": ... }',
    { code: 'invalid_input' },
  );
}

/** The bytes of one entry, as a Uint8Array (a view, not a copy, where it already is bytes). */
export async function readBytes(entry, name) {
  if (entry instanceof Uint8Array) return entry;
  if (entry instanceof ArrayBuffer) return new Uint8Array(entry);
  if (ArrayBuffer.isView(entry)) return new Uint8Array(entry.buffer, entry.byteOffset, entry.byteLength);
  if (typeof entry === 'string') return new TextEncoder().encode(entry);
  if (entry && typeof entry.arrayBuffer === 'function') return new Uint8Array(await entry.arrayBuffer());
  throw new ResidualLabError(`${name}: expected a File, Blob, ArrayBuffer or Uint8Array`, { code: 'invalid_input' });
}

/** The text of a JSON entry, bounded. */
export async function readText(entry, name, limit = MAX_JSON_BYTES) {
  if (typeof entry === 'string') {
    if (entry.length > limit)
      throw new ResidualLabError(`${name} is ${entry.length} characters long; at most ${limit} are read`, {
        code: 'too_long',
      });
    return entry;
  }
  const size = entry?.size ?? entry?.byteLength;
  if (typeof size === 'number' && size > limit)
    throw new ResidualLabError(`${name} is ${size} bytes long; at most ${limit} are read`, { code: 'too_long' });
  const bytes = await readBytes(entry, name);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ResidualLabError(`${name} is not UTF-8 text`, { code: 'invalid_json' });
  }
}

export const CONFIG_LIMIT = MAX_CONFIG_CHARS;

/**
 * A weights file as a source of byte ranges: { name, size, read(begin, end, into?) -> Promise<Uint8Array>, close() }
 * (`into`, a Uint8Array of end - begin bytes a caller reuses, is filled where the source can read into it).
 * A Blob or File is read with blob.slice(begin, end) (a disk-backed File reads just that range); in node a path
 * (a string or a file: URL) is read with a FileHandle, four times faster than node's file-backed Blob (docs/
 * benchmarks.md); bytes already in memory are viewed, not copied. A read that comes back short, or that the
 * browser refuses (a picked file changed on disk since it was picked), is the error "file_changed".
 */
export async function weightSource(entry, name) {
  const changed = (detail) =>
    new ResidualLabError(`${name} changed or could not be read since it was opened (${detail}); open the files again`, {
      code: 'file_changed',
    });
  if (entry instanceof ArrayBuffer || ArrayBuffer.isView(entry)) {
    const bytes =
      entry instanceof ArrayBuffer
        ? new Uint8Array(entry)
        : new Uint8Array(entry.buffer, entry.byteOffset, entry.byteLength);
    return { name, size: bytes.length, read: async (begin, end) => bytes.subarray(begin, end), close() {} };
  }
  if (typeof entry === 'string' || entry instanceof URL) return pathSource(entry, name, changed);
  if (!entry || typeof entry.slice !== 'function' || typeof entry.size !== 'number')
    throw new ResidualLabError(`${name}: expected a File, Blob, ArrayBuffer, Uint8Array or (in node) a path`, {
      code: 'invalid_input',
    });
  return {
    name,
    size: entry.size,
    async read(begin, end) {
      let buffer;
      try {
        buffer = await entry.slice(begin, end).arrayBuffer();
      } catch (error) {
        throw changed(error?.message ?? String(error));
      }
      if (buffer.byteLength !== end - begin)
        throw changed(`bytes ${begin}-${end} gave ${buffer.byteLength} bytes, the file is shorter now`);
      return new Uint8Array(buffer);
    },
    close() {},
  };
}

async function pathSource(path, name, changed) {
  let handle;
  try {
    const { open } = await importNodeModule('node:fs/promises');
    handle = await open(path, 'r');
  } catch (error) {
    const inBrowser = typeof window !== 'undefined' || typeof WorkerGlobalScope !== 'undefined';
    throw new ResidualLabError(
      inBrowser
        ? `${name}: a path can be opened in node only; in a page give the File`
        : `${name}: ${String(path)} could not be opened (${error.code ?? error.message})`,
      { code: inBrowser ? 'invalid_input' : 'missing_file' },
    );
  }
  const { size } = await handle.stat();
  return {
    name,
    size,
    async read(begin, end, into) {
      // a reused buffer: fresh memory costs a page fault per 4 KB on first touch, a run reads gigabytes
      const bytes = into ?? new Uint8Array(end - begin);
      for (let done = 0; done < bytes.length;) {
        const { bytesRead } = await handle.read(bytes, done, bytes.length - done, begin + done);
        if (bytesRead === 0) throw changed(`bytes ${begin}-${end} gave ${done} bytes, the file is shorter now`);
        done += bytesRead;
      }
      return bytes;
    },
    close: () => handle.close().catch(() => {}),
  };
}
