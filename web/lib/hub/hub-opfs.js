// A browser's store for lab.fetchCheckpoint: the Origin Private File System, written as the bytes arrive.
//   <root>/models--<org>--<name>/blobs/<etag>[.incomplete]   as in the Hub's cache (hub-cache-node.js)
//   <root>/models--<org>--<name>/model.json                  { repo, revision, commit, endpoint, files: { name:
//                                                             etag }, bytes, date }: OPFS has no symlinks
// Files come back as the disk-backed File objects getFile() gives, so a model never sits in memory.
import { ResidualLabError } from '../errors.js';

const ROOT = 'residual-lab-models';
const MANIFEST = 'model.json';

// `reason` (bytes needed and free) lets a page say it in its own language.
const full = (need, free) =>
  Object.assign(
    new ResidualLabError(
      `the model needs ${size(need)}, and this browser lets the page store only ${size(Math.max(0, free))} more: ` +
        'free space (delete stored models) or download the files yourself and open them',
      { code: 'storage_full' },
    ),
    { reason: { kind: 'quota', value: need, limit: Math.max(0, free) } },
  );
// A File named as the checkpoint names it; a Blob made of a Blob refers to its bytes, it does not copy them.
const named = (file, name) => new File([file], name.split('/').pop(), { type: file.type });
const size = (bytes) =>
  bytes >= 1e9
    ? `${(bytes / 1e9).toFixed(2)} GB`
    : bytes >= 1e6
      ? `${(bytes / 1e6).toFixed(1)} MB`
      : `${Math.ceil(bytes / 1e3)} kB`;
// A writable's bytes reach the file only when it closes (until then they are in a swap file a reload throws away),
// and opening one on a file that has bytes copies them: so a partial file's writable closes each time the bytes
// written since it opened reach the file's committed length (and COMMIT_MIN). A reload then loses at most half of
// what arrived, and the copies add up to less than the file's size.
const COMMIT_MIN = 1 << 18;
const missingEntry = (error) => error?.name === 'NotFoundError' || error?.name === 'TypeMismatchError';

export async function opfsHubStore() {
  if (!globalThis.navigator?.storage?.getDirectory)
    throw Object.assign(
      new ResidualLabError('this browser has no Origin Private File System to store a model in', {
        code: 'storage_full',
      }),
      { reason: { kind: 'no_store' } },
    );
  const root = await storeRoot();
  const folder = (repo, create = true) => root.getDirectoryHandle(`models--${repo.replace('/', '--')}`, { create });
  const blobs = async (repo) => (await folder(repo)).getDirectoryHandle('blobs', { create: true });
  const fileOf = async (repo, key) =>
    (await (await (await folder(repo, false)).getDirectoryHandle('blobs')).getFileHandle(key)).getFile();

  return {
    async snapshot(repo, revision) {
      let dir;
      try {
        dir = await folder(repo, false);
      } catch {
        return null;
      }
      const m = await readManifest(dir);
      if (!m || (m.revision !== revision && m.commit !== revision)) return null;
      const files = {};
      try {
        for (const [name, key] of Object.entries(m.files)) files[name] = named(await fileOf(repo, key), name);
      } catch (error) {
        if (missingEntry(error)) return null;
        throw error;
      }
      return { commit: m.commit, bytes: m.bytes, files };
    },
    async reserve(repo, plan, bytes) {
      let have = 0;
      for (const f of plan) have += (await this.hasBlob(repo, f.key, f.size)) ? f.size : 0;
      const { quota, usage } = (await navigator.storage.estimate?.()) ?? {};
      if (Number.isFinite(quota) && bytes - have > quota - usage) throw full(bytes - have, quota - usage);
      await navigator.storage.persist?.().catch(() => false); // asked, not required: a refusal leaves it "best effort"
    },
    async hasBlob(repo, key, size) {
      try {
        return (await fileOf(repo, key)).size === size;
      } catch {
        return false;
      }
    },
    readBlob: async (repo, key) => new Uint8Array(await (await fileOf(repo, key)).arrayBuffer()),
    async partial(repo, key) {
      const existing = await folder(repo, false)
        .then((f) => f.getDirectoryHandle('blobs'))
        .then(async (dir) => ({ dir, handle: await dir.getFileHandle(`${key}.incomplete`) }))
        .catch(() => null);
      return partialFile(key, existing, () => blobs(repo));
    },
    async link(repo, revision, commit, plan, { endpoint }) {
      const manifest = {
        repo,
        revision,
        commit,
        endpoint,
        files: Object.fromEntries(plan.map((f) => [f.name, f.key])),
        bytes: plan.reduce((sum, f) => sum + f.size, 0),
        date: new Date().toISOString(),
      };
      const w = await (await (await folder(repo)).getFileHandle(MANIFEST, { create: true })).createWritable();
      await w.write(JSON.stringify(manifest));
      await w.close();
      const files = {};
      for (const f of plan) files[f.name] = named(await fileOf(repo, f.key), f.name);
      return files;
    },
  };
}

const storeRoot = async () => (await navigator.storage.getDirectory()).getDirectoryHandle(ROOT, { create: true });

/** A model folder's manifest, or null when it has none (a download that never finished) or it is unreadable. */
async function readManifest(dir) {
  try {
    return JSON.parse(await (await (await dir.getFileHandle(MANIFEST)).getFile()).text());
  } catch {
    return null;
  }
}

/**
 * A partial download, `<key>.incomplete` in the blobs folder, moved to `key` by commit(). `existing`: its folder and
 * file handle when a partial file is there already, else null; `blobsFolder()` makes the folder. Nothing is
 * created until the first byte arrives: a refused download leaves no file and no folder behind.
 */
function partialFile(key, existing, blobsFolder) {
  const name = `${key}.incomplete`;
  let dir = existing?.dir ?? null;
  let handle = existing?.handle ?? null;
  let writable = null;
  let committed = 0; // the file's length on disk, as a reload finds it
  let pending = 0; // bytes written since the writable opened
  const writer = async () => {
    if (!handle) {
      dir = await blobsFolder();
      handle = await dir.getFileHandle(name, { create: true });
    }
    if (!writable) {
      writable = await handle.createWritable({ keepExistingData: true });
      committed = (await handle.getFile()).size;
      pending = 0;
      await writable.seek(committed);
    }
    return writable;
  };
  const close = async () => {
    const w = writable;
    writable = null;
    await w?.close();
  };
  return {
    async *existing() {
      if (!handle) return;
      const reader = (await handle.getFile()).stream().getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    },
    async truncate() {
      const w = await writer();
      await w.truncate(0);
      await w.seek(0);
      committed = 0;
      pending = 0;
    },
    async write(chunk) {
      try {
        await (await writer()).write(chunk);
        pending += chunk.length;
        if (pending >= Math.max(COMMIT_MIN, committed)) await close();
      } catch (error) {
        if (error?.name === 'QuotaExceededError') {
          const { quota, usage } = await navigator.storage.estimate();
          throw full(chunk.length, quota - usage);
        }
        throw error;
      }
    },
    close: () => close().catch(() => {}),
    async discard() {
      await writable?.abort().catch(() => {});
      writable = null;
      await dir?.removeEntry(name).catch(() => {});
    },
    async commit() {
      await writer(); // an empty file has had no write
      await close();
      await handle.move(key);
    },
  };
}

/** The models stored in this browser: [{ repo, revision, commit, endpoint, bytes, date }], newest first. */
export async function listStoredModels() {
  if (!globalThis.navigator?.storage?.getDirectory) return [];
  const root = await storeRoot();
  const out = [];
  for await (const [, dir] of root.entries()) {
    if (dir.kind !== 'directory') continue;
    const m = await readManifest(dir);
    // a model whose download never finished has no manifest: it is resumed, not listed
    if (m)
      out.push({
        repo: m.repo,
        revision: m.revision,
        commit: m.commit,
        endpoint: m.endpoint,
        bytes: m.bytes,
        date: m.date,
      });
  }
  return out.sort((a, b) => String(b.date).localeCompare(String(a.date)));
}

/** Deletes a stored model, its partial files included. */
export async function deleteStoredModel(repo) {
  const root = await storeRoot();
  await root.removeEntry(`models--${repo.replace('/', '--')}`, { recursive: true }).catch((error) => {
    if (error?.name !== 'NotFoundError') throw error;
  });
}
