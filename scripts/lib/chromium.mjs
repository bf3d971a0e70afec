// How the browser tests (tests/e2e/harness.mjs) and the page bench (scripts/bench-page.mjs) start Debian's
// Chromium through playwright-core: headless, no sandbox (CI runs as root), and nothing that talks to the
// network or works in the background on the browser's own behalf.
//
// Every new window of Chromium's headless mode (a full browser since version 132) loads its omnibox popup, a
// chrome:// page, in a renderer of its own; a test or a bench visit opens a window per browser context, so each
// visit shared the machine's two cores with that page's start-up (about 40-65 ms of CPU on the main thread of its
// renderer while the lab's first frame was laid out). A reader's click opens no window, so the features behind
// the popup are off.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup',
];

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
