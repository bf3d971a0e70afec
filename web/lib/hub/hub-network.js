// The downloader's requests (hub.js): fetch with the access token sent to the endpoint's origin alone, a 429 or 503
// retried after the wait the host asks for, and every failure turned into one of the lab's error codes with the
// reason a reader can act on (a page's Content-Security-Policy, no network, a gated or missing model).
import { ResidualLabError } from '../errors.js';

const VIOLATION_WAIT_MS = 250; // how long a failed request waits for the CSP violation event that names its cause
const MAX_RETRIES = 5; // a 429 or 503 retried this many times (huggingface_hub's http_backoff: 5)
const BACKOFF_MS = 1000; // without Retry-After: 1, 2, 4, 8, 8 s (huggingface_hub: base 1 s, at most 8 s)
const BACKOFF_MAX_MS = 8000;
const RETRY_WAIT_MAX_MS = 60000; // a longer Retry-After is reported, not waited out in a reader's page

// `reason` ({ kind, value? }) lets a page say the message in its own language.
export const fail = (code, message, reason) =>
  Object.assign(new ResidualLabError(message, { code }), reason && { reason });
const tagged = (code, fields, message) => Object.assign(fail(code, message), fields);

/**
 * fetch with the Hub's answers turned into the lab's error codes: { signal, request(url, init, stage, repo),
 * json(url, repo) }. `stage`: 'api' (the Hub's JSON) or 'download' (a file, which may be redirected).
 */
export function network(fetchImpl, signal, endpoint, token) {
  const host = new URL(endpoint).host;
  const send = transport(fetchImpl, signal, endpoint, token);
  const request = async (url, init = {}, stage = 'api', repo = '') => {
    const response = await retried(send, url, init, stage, signal);
    if (response.ok || response.status === 416) return response;
    throw statusError(response, { url, stage, repo, host, token });
  };
  return {
    signal,
    request,
    async json(url, repo) {
      const response = await request(url, { headers: { accept: 'application/json' } }, 'api', repo);
      try {
        return await response.json();
      } catch {
        throw fail('bad_response', `${host} did not answer with JSON for ${repo}: is ${endpoint} a Hugging Face host?`);
      }
    },
  };
}

/**
 * One request, `send(url, init, stage)`: its response, or the reason it got none (fetchError). Remembers the hosts
 * that answered, and listens for the page's CSP violation events while a request is under way.
 */
function transport(fetchImpl, signal, endpoint, token) {
  const { host, origin } = new URL(endpoint);
  const violations = [];
  const answered = new Set(); // the hosts that answered a request: the page's policy allows them
  let heard = null;
  const onViolation = (event) => {
    violations.push(event.blockedURI);
    heard?.();
  };
  // The browser queues the violation event as a task of its own, which may run after the fetch's rejection: a page
  // waits for it a moment (only on this failure path).
  const refusedAddress = async () => {
    if (!violations.length && typeof SecurityPolicyViolationEvent === 'function')
      await new Promise((resolve) => {
        heard = resolve;
        setTimeout(resolve, VIOLATION_WAIT_MS);
      });
    heard = null;
    return violations.find(Boolean);
  };
  return async (url, init, stage) => {
    globalThis.addEventListener?.('securitypolicyviolation', onViolation);
    try {
      // The token goes to the endpoint's own origin only. A redirect to another origin (the Hub's download host)
      // drops it: fetch removes Authorization on a cross-origin redirect (Fetch standard, HTTP-redirect fetch).
      const headers =
        token && new URL(url).origin === origin ? { ...init.headers, authorization: `Bearer ${token}` } : init.headers;
      const response = await fetchImpl(url, { ...init, headers, signal, redirect: 'follow', credentials: 'omit' });
      answered.add(new URL(url).host);
      return response;
    } catch (error) {
      if (signal?.aborted) throw cancelled(signal);
      throw fetchError(error, { url, stage, host, refused: await refusedAddress(), answered });
    } finally {
      globalThis.removeEventListener?.('securitypolicyviolation', onViolation);
    }
  };
}

/**
 * Why a fetch got no response: a Content-Security-Policy refused the host (`refused`: the address its violation
 * event named) or the host a download was redirected to, the machine is offline, or the host cannot be reached.
 * A CSP refusal surfaces as a bare TypeError; only the violation event names the address.
 */
function fetchError(error, { url, stage, host, refused, answered }) {
  const file = url.split('/').pop();
  // A browser names a redirect's refused target by the address first asked for (so as not to tell the page where
  // a cross-origin redirect led): a host that has answered before was not the one refused.
  if (refused && answered.has(hostOf(refused)))
    return fail(
      'blocked',
      `this page's Content-Security-Policy does not allow the host ${hostOf(refused)} redirected the download ` +
        `of ${file} to; the host page must allow its download hosts in connect-src (docs/checkpoints.md)`,
      { kind: 'csp_redirect', value: hostOf(refused) },
    );
  if (refused)
    return fail(
      'blocked',
      `this page's Content-Security-Policy does not allow connecting to ${hostOf(refused)}; ` +
        'the host page must allow it in connect-src (docs/checkpoints.md)',
      { kind: 'csp', value: hostOf(refused) },
    );
  if (globalThis.navigator?.onLine === false) return offline(host);
  const cause = error?.cause?.code ?? '';
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|ETIMEDOUT/.test(cause)) return offline(host, cause);
  if (stage === 'download' && typeof window !== 'undefined')
    return fail(
      'blocked',
      `${host} answered, but the download of ${file} it redirected to was refused: the browser's ` +
        'CORS or Content-Security-Policy check blocked the download host (see the console), or a firewall did',
      { kind: 'download_refused', value: host },
    );
  return offline(host, error?.cause?.message ?? error?.message);
}

/** The response to `url`, a 429 or 503 sent again after the host's Retry-After or huggingface_hub's backoff. */
async function retried(send, url, init, stage, signal) {
  for (let attempt = 0; ; attempt++) {
    const response = await send(url, init, stage);
    if (response.status !== 429 && response.status !== 503) return response;
    // the wait the host asks for (Retry-After), else huggingface_hub's http_backoff waits: 1, 2, 4, 8, 8 s
    const asked = retryAfterMs(response.headers.get('retry-after'));
    const wait = asked ?? Math.min(BACKOFF_MS * 2 ** attempt, BACKOFF_MAX_MS);
    const seconds = Math.ceil(wait / 1000);
    if (attempt >= MAX_RETRIES || wait > RETRY_WAIT_MAX_MS)
      throw fail(
        'rate_limited',
        `${hostOf(response.url || url)} answered ${response.status} ` +
          `(${response.status === 429 ? 'too many requests' : 'unavailable'}) ` +
          `for ${url.split('/').pop()}` +
          (attempt >= MAX_RETRIES ? ` ${attempt + 1} times in a row` : `, asking to wait ${seconds} s`) +
          '; fetch again later: the download continues where it stopped',
      );
    await response.body?.cancel().catch(() => {});
    await sleep(wait, signal);
  }
}

/**
 * A refusal's error. The Hub names the reason in X-Error-Code: an anonymous request for a repo that does not exist
 * gets 401 RepoNotFound (so as not to tell a private repo from a missing one), a gated repo's file 401 or 403
 * GatedRepo.
 */
function statusError(response, { url, stage, repo, host, token }) {
  const reason = response.headers.get('x-error-code');
  const file = stage === 'api' ? '' : url.split('/').pop();
  const missing = (what) =>
    fail('not_found', `${host} has no ${what} (${response.status}${reason ? ` ${reason}` : ''})`);
  if (reason === 'RepoNotFound')
    return missing(
      `model ${repo || url}${response.status === 401 && !token ? ', or it is private and needs an access token' : ''}`,
    );
  if (reason === 'RevisionNotFound') return missing(`such revision of ${repo || url}`);
  if (reason === 'EntryNotFound') return missing(`file ${file || url} in ${repo || url}`);
  if (response.status === 404) return missing(repo ? `model ${repo}${file ? ` file ${file}` : ''}` : url);
  if (reason === 'GatedRepo' || response.status === 401 || response.status === 403)
    return tagged(
      'gated',
      { tokenSent: Boolean(token) },
      token
        ? `${repo || url} refused the access token given (${response.status}${reason ? ` ${reason}` : ''}): accept ` +
            "the model's terms on its Hub page with that account, or give a token with read access"
        : `${repo || url} needs a Hugging Face access token (it is gated or private, ${response.status}): accept its ` +
            'terms on its Hub page, then give a token (HF_TOKEN, or the token field), or download its files ' +
            'yourself and open them',
    );
  return fail('http_error', `${host} answered ${response.status} ${response.statusText} for ${url}`);
}

/** Retry-After as delta-seconds or an HTTP date, in ms; null when absent or unreadable. */
function retryAfterMs(value) {
  if (value == null || value.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null;
}

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled(signal));
    const done = () => {
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(cancelled(signal));
    };
    signal?.addEventListener('abort', stop, { once: true });
  });

const hostOf = (address) => {
  try {
    return new URL(address).host;
  } catch {
    return String(address);
  }
};
const offline = (host, detail) =>
  fail('offline', `${host} could not be reached${detail ? ` (${detail})` : ''}: is this machine offline?`);
const cancelled = (signal) =>
  signal.reason instanceof ResidualLabError
    ? signal.reason
    : fail('cancelled', 'the download was cancelled; fetching the model again resumes it');
