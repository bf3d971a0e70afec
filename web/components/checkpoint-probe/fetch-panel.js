// The probe's "fetch a model" panel: the chapter's model (its size shown before anything starts) or any repo id,
// from a host of HUB_HOSTS or a custom endpoint, into this browser's storage (lab.fetchCheckpoint); progress with
// bytes, rate and time left, cancel (a later fetch resumes), and the models stored here with a delete button.
// Nothing is fetched before a click; ?model=org/name only fills the field. The access token field (for a gated
// model) lives in this element only: not in the page's address, its state or any storage, and hub.js sends it to
// the chosen host's own origin alone.
import { CHAPTER_MODEL, HUB_HOSTS } from '../../lib/hub/hub-hosts.js';
import { checkEndpoint, checkRepoId } from '../../lib/hub/hub-checks.js';
import { deleteStoredCheckpoint, fetchCheckpoint, storedCheckpoints } from '../../lib/hub/fetch.js';
import { h } from '../shared/dom.js';

const CUSTOM = 'custom';
const mb = (bytes) => (bytes / 1e6).toFixed(1);

/**
 * The panel of a page opened from disk (the offline file): no Origin Private File System to store a model in and no
 * origin a host's CORS answer could allow, so it says so instead of offering what cannot work.
 */
function unavailablePanel(s) {
  return {
    root: h(
      'details',
      { class: 'fetch-panel', 'data-fetch-unavailable': '' },
      h('summary', {}, s.fetchTitle),
      h('p', { class: 'hint' }, s.fetchFromFile),
    ),
    cancel() {},
  };
}

/** What to fetch and from where: the host (or a custom endpoint), the access token, the repo id and a GGUF file. */
function sourceFields(s) {
  const host = h(
    'select',
    { id: 'field-host', name: 'host', onchange: () => (customField.hidden = host.value !== CUSTOM) },
    [
      ...HUB_HOSTS.map((row) => h('option', { value: row.endpoint }, row.name)),
      h('option', { value: CUSTOM }, s.fetchCustomHost),
    ],
  );
  const custom = h('input', { id: 'field-endpoint', type: 'url', placeholder: 'https://hf-mirror.com' });
  const customField = h(
    'div',
    { class: 'field', hidden: true },
    h('label', { for: 'field-endpoint' }, s.fetchEndpointLabel),
    custom,
  );
  const token = h('input', {
    id: 'field-token',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'hf_…',
    'data-token': '',
  });
  const offered = new URLSearchParams(globalThis.location?.search ?? '').get('model');
  const repo = h('input', {
    id: 'field-repo',
    type: 'text',
    spellcheck: 'false',
    value: offered ?? '',
    placeholder: CHAPTER_MODEL.repo,
  });
  // a GGUF file of the repo (its name as the repo's file list gives it): fetched alone, without config.json
  const ggufFile = h('input', {
    id: 'field-gguf',
    type: 'text',
    spellcheck: 'false',
    placeholder: 'qwen2.5-0.5b-instruct-q4_k_m.gguf',
    'data-gguf': '',
  });
  return { host, custom, customField, token, offered, repo, ggufFile };
}

/** An onProgress for fetchCheckpoint: the bar, and the bytes, rate and time left, the rate from the first report on. */
function progressShown(s, progress, status) {
  let first = null;
  return ({ loaded, total }) => {
    first ??= { at: performance.now(), loaded };
    const seconds = (performance.now() - first.at) / 1000;
    const rate = seconds > 0.5 ? (loaded - first.loaded) / seconds : 0;
    progress.max = total;
    progress.value = loaded;
    status.textContent = s.fetchProgress(
      mb(loaded),
      mb(total),
      rate ? mb(rate) : '',
      rate ? Math.ceil((total - loaded) / rate) : null,
    );
  };
}

/** s: the probe's strings (fetch*); onFiles(files, model): the fetched files, to open. */
export function fetchPanel(s, onFiles) {
  if (globalThis.location?.protocol === 'file:') return unavailablePanel(s);
  const { host, custom, customField, token, offered, repo, ggufFile } = sourceFields(s);
  const chapterButton = h(
    'button',
    { type: 'button', 'data-fetch-chapter': '', onclick: () => start(CHAPTER_MODEL.repo) },
    s.fetchChapter(CHAPTER_MODEL.repo, (CHAPTER_MODEL.bytes / 1e9).toFixed(2)),
  );
  const repoButton = h(
    'button',
    {
      type: 'button',
      'data-fetch-repo': '',
      onclick: () => start(repo.value.trim(), undefined, ggufFile.value.trim()),
    },
    s.fetchRepo,
  );
  const cancelButton = h('button', { type: 'button', hidden: true, onclick: () => controller?.abort() }, s.cancel);
  const progress = h('progress', { hidden: true, 'aria-label': s.fetchProgressLabel });
  const status = h('p', { class: 'fetch-status', role: 'status', 'aria-live': 'polite', 'data-fetch-status': '' });
  const error = h('p', { class: 'fetch-error', role: 'alert', 'data-fetch-error': '' });
  const list = h('ul', { class: 'stored-models', 'data-stored': '' });
  let controller = null;

  const endpoint = () => (host.value === CUSTOM ? checkEndpoint(custom.value.trim()) : host.value);
  const buttons = () => [chapterButton, repoButton, ...list.querySelectorAll('button')];
  /**
   * Fetches (or opens from storage) `id`, from `from` (a stored model's host) or the host chosen, `file` a .gguf of
   * it or '' for the transformers files; one at a time.
   */
  async function start(id, from, file = '') {
    if (controller) return;
    error.textContent = '';
    let options;
    try {
      checkRepoId(id);
      options = { endpoint: from ?? endpoint(), token: token.value.trim() || null, ...(file ? { file } : {}) };
    } catch (problem) {
      error.textContent = s.fetchErrors[problem.code]?.(problem) ?? problem.message;
      return;
    }
    controller = new AbortController();
    for (const button of buttons()) button.disabled = true;
    const began = performance.now();
    cancelButton.hidden = false;
    progress.hidden = false;
    progress.removeAttribute('value');
    status.textContent = s.fetchAsking(id, new URL(options.endpoint).host);
    try {
      const got = await fetchCheckpoint(id, {
        ...options,
        signal: controller.signal,
        onProgress: progressShown(s, progress, status),
      });
      status.textContent = got.fetched
        ? s.fetchDone(id, got.commit.slice(0, 10), mb(got.bytes), ((performance.now() - began) / 1000).toFixed(1))
        : s.fetchStored(id, got.commit.slice(0, 10));
      await showStored();
      onFiles(Object.values(got.files), id);
    } catch (problem) {
      status.textContent = '';
      error.textContent =
        s.fetchErrors[problem?.code]?.(problem) ?? s.fetchErrors.other(problem?.message ?? String(problem));
    } finally {
      controller = null;
      for (const button of buttons()) button.disabled = false;
      cancelButton.hidden = true;
      progress.hidden = true;
    }
  }

  async function showStored() {
    const models = await storedCheckpoints().catch(() => []);
    list.replaceChildren(
      ...models.map((m) =>
        h(
          'li',
          { 'data-repo': m.repo },
          s.storedModel(m.repo, m.revision, m.commit.slice(0, 10), mb(m.bytes), m.date.slice(0, 10)),
          ' ',
          h('button', { type: 'button', onclick: () => start(m.repo, m.endpoint) }, s.storedOpen),
          ' ',
          h(
            'button',
            {
              type: 'button',
              'data-delete': m.repo,
              onclick: async () => (await deleteStoredCheckpoint(m.repo), showStored()),
            },
            s.storedDelete,
          ),
        ),
      ),
    );
    if (!models.length) list.append(h('li', {}, s.storedNone));
  }
  showStored();

  const root = h(
    'details',
    { class: 'fetch-panel', open: offered ? '' : undefined },
    h('summary', {}, s.fetchTitle),
    h('p', { class: 'hint' }, s.fetchHint),
    h('div', { class: 'field' }, h('label', { for: 'field-host' }, s.fetchHost), host),
    customField,
    h('p', {}, chapterButton),
    h('div', { class: 'field' }, h('label', { for: 'field-repo' }, s.fetchRepoLabel), repo, repoButton),
    h('div', { class: 'field' }, h('label', { for: 'field-gguf' }, s.fetchGgufLabel), ggufFile),
    h('div', { class: 'field' }, h('label', { for: 'field-token' }, s.fetchToken), token),
    h('p', { class: 'hint' }, s.fetchTokenHint),
    h('div', { class: 'fetch-row' }, progress, status, cancelButton),
    error,
    h('h4', {}, s.storedTitle),
    list,
  );
  return { root, cancel: () => controller?.abort() };
}
