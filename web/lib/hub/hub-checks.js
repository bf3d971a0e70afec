// The checks of what a reader types to fetch a model (a repo id, a revision, a host address), apart from hub.js so
// that the probe's fetch panel can check its fields without loading the downloader and its hashes.
import { ResidualLabError } from '../errors.js';

// A repo id as the Hub allows it: "name" or "org/name", letters, digits, "-", "_", "." (no "--" or "..", which the
// cache's folder names and paths could not tell apart).
const REPO_ID = /^(?:[A-Za-z0-9][\w.-]{0,95}\/)?[A-Za-z0-9][\w.-]{0,95}$/;
const REVISION = /^[\w.-]{1,200}(?:\/[\w.-]{1,200})*$/;

// `reason` ({ kind, value }) lets a page say the message in its own language.
const invalid = (message, reason) =>
  Object.assign(new ResidualLabError(message, { code: 'invalid_input' }), { reason });

/** Checks a repo id; throws 'invalid_input' with the reason a reader can act on. */
export function checkRepoId(repo) {
  if (typeof repo !== 'string' || !REPO_ID.test(repo) || repo.includes('--') || repo.includes('..'))
    throw invalid(
      `"${String(repo).slice(0, 120)}" is not a Hugging Face model id; it reads like "Qwen/Qwen2.5-0.5B-Instruct"`,
      { kind: 'not_repo_id', value: String(repo).slice(0, 120) },
    );
  return repo;
}

/** Checks a revision (a branch, a tag or a commit); throws 'invalid_input'. */
export function checkRevision(revision) {
  if (typeof revision !== 'string' || !REVISION.test(revision) || revision.includes('..'))
    throw invalid(`"${String(revision).slice(0, 80)}" is not a revision: a branch, a tag or a commit`, {
      kind: 'not_revision',
      value: String(revision).slice(0, 80),
    });
  return revision;
}

/** An endpoint as a URL without a trailing slash; http(s) only. */
export function checkEndpoint(endpoint) {
  let url;
  try {
    url = new URL(endpoint);
  } catch {
    url = null;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.username)
    throw invalid(`"${String(endpoint).slice(0, 200)}" is not a host address; it reads like https://huggingface.co`, {
      kind: 'not_host',
      value: String(endpoint).slice(0, 200),
    });
  return url.href.replace(/\/+$/, '');
}

/** An access token as the Hub issues it (printable, no spaces), or none for null, undefined or ''; 'invalid_input'. */
export function checkToken(token) {
  if (token == null || token === '') return null;
  if (typeof token !== 'string' || !/^[\x21-\x7e]{8,4096}$/.test(token.trim()))
    throw invalid(
      'the access token is not one the Hub issues: it reads like hf_ and 34 letters (huggingface.co/settings/tokens)',
    );
  return token.trim();
}
