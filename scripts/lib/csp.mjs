// The lab's Content-Security-Policy, in one place: scripts/pages.mjs writes it into every page as
// <meta http-equiv="Content-Security-Policy"> (so dist/ copied to any static host still runs under it), and
// scripts/serve.mjs sends the same text as a header.
//
// No 'unsafe-inline' and no 'unsafe-eval': Embind runs without new Function (-sDYNAMIC_EXECUTION=0) and
// WebAssembly compiles under 'wasm-unsafe-eval'. Widgets style themselves with constructable stylesheets.
// Only directives a <meta> policy honours belong here: browsers ignore frame-ancestors, report-uri and sandbox
// in a meta element, so framing is FRAMING_POLICY, a header of its own.
// connect-src names the hosts a model is fetched from (the probe's "fetch", only when the reader asks) and the
// hosts they redirect weight downloads to: HUB_HOSTS, one table.
import { HUB_HOSTS } from '../../web/lib/hub/hub-hosts.js';

/** The origins a model may be fetched from: every host's endpoint and download hosts. */
export const MODEL_HOSTS = HUB_HOSTS.flatMap((host) => [host.endpoint, ...host.downloads]);
/**
 * The page policy; `connect` adds origins to connect-src (serve.mjs's connectSrc option: a local mirror or the
 * tests' mock Hub on loopback). The built pages carry the policy without additions, CONTENT_SECURITY_POLICY.
 */
export function contentSecurityPolicy({ connect = [] } = {}) {
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${[...MODEL_HOSTS, ...connect.map(checkOrigin)].join(' ')}`,
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
  ].join('; ');
}
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

/** An origin as a connect-src source: http(s)://host[:port] and nothing else (no path, no wildcard, no quote). */
export function checkOrigin(origin) {
  let url = null;
  try {
    url = new URL(origin);
  } catch {
    // not an address
  }
  if (
    !url ||
    !/^https?:$/.test(url.protocol) ||
    url.hostname.includes('*') ||
    url.origin !== String(origin).replace(/\/$/, '')
  )
    throw new Error(`${JSON.stringify(origin)} is not an origin (http(s)://host[:port]) to add to connect-src`);
  return url.origin;
}

// Embedding the lab in an iframe is a feature (a course page, slides, a per-widget page): any origin may frame
// it. The widgets hold no secrets and take no action on the reader's behalf, so clickjacking has nothing to win.
// A separate header rather than a clause of the page policy, so that the page policy stays identical to the meta.
export const FRAMING_POLICY = 'frame-ancestors *';

const escapeAttribute = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** The meta element that carries `policy` inside a page. */
export const cspMeta = (policy) => `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(policy)}">`;
/** The meta element that carries CONTENT_SECURITY_POLICY inside a page. */
export const CSP_META = cspMeta(CONTENT_SECURITY_POLICY);
