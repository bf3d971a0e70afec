// The page shell: the theme (the toggle, and the system's preference followed until the reader chooses), the
// table of contents that follows reading, the language menu whose links keep the reader's place (#section) and
// widget settings (?query), holding a linked section in view while the widgets above it finish drawing, the
// chapter's links that set a widget's settings opened in place, and printing the figures computed.
import { languageCode, loadLanguage, stringsOf } from '../languages.js';
import { nextFrame } from '../lib/next-task.js';
import { KEEP_IN_VIEW_EVENT, READER_MOVES } from '../components/shared/keep-in-view.js';
import { openWidgetLinksInPlace } from './widget-links.js';

const THEME_KEY = 'residual-lab-theme';
const systemDark = matchMedia('(prefers-color-scheme: dark)');

/** The reader's saved choice, or null when the page follows the system (as shell/theme-init.js decided). */
function savedTheme() {
  try {
    const saved = localStorage.getItem(THEME_KEY);
    return saved === 'light' || saved === 'dark' ? saved : null;
  } catch {
    return null;
  }
}

function setupTheme() {
  const root = document.documentElement;
  const button = document.querySelector('[data-theme-toggle]');
  let followsSystem = savedTheme() === null;
  const showPressed = () => button?.setAttribute('aria-pressed', String(root.getAttribute('data-theme') === 'dark'));
  const apply = (theme) => {
    root.setAttribute('data-theme', theme);
    showPressed();
    document.dispatchEvent(new CustomEvent('residual-lab:themechange', { detail: { theme } }));
  };
  button?.addEventListener('click', () => {
    const theme = root.getAttribute('data-theme') === 'dark' ? 'light' : 'dark';
    followsSystem = false;
    try {
      localStorage.setItem(THEME_KEY, theme);
    } catch {
      /* not remembered, still applied */
    }
    apply(theme);
  });
  systemDark.addEventListener('change', () => {
    if (followsSystem) apply(systemDark.matches ? 'dark' : 'light');
  });
  showPressed();
}

/** On a phone the contents start folded (a long list above the text); beside the text they stay open. */
function foldContentsOnNarrowScreens() {
  const details = document.querySelector('.toc details');
  if (details && matchMedia('(max-width: 67.99rem)').matches) details.open = false;
}

/** Marks the contents link of the section that crosses the reading line (a fifth of the way down the window). */
function setupTableOfContents() {
  const sections = [...document.querySelectorAll('section[data-section]')];
  const links = new Map([...document.querySelectorAll('[data-toc-link]')].map((a) => [a.dataset.tocLink, a]));
  const crossing = new Set();
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) crossing.add(entry.target);
        else crossing.delete(entry.target);
      }
      const current = sections.find((s) => crossing.has(s))?.dataset.section ?? null;
      for (const [id, link] of links) {
        if (id === current) link.setAttribute('aria-current', 'true');
        else link.removeAttribute('aria-current');
      }
    },
    { rootMargin: '-20% 0px -79% 0px' },
  );
  sections.forEach((section) => observer.observe(section));
}

/** The id of the last heading (h2 or h3) above the reading line: where the reader is. */
function readingPlace() {
  const line = innerHeight * 0.2 + 1;
  let place = null;
  for (const heading of document.querySelectorAll('article h2[id], article h3[id]')) {
    if (heading.getBoundingClientRect().top > line) break;
    place = heading.id;
  }
  return place;
}

function setupLanguageMenu() {
  const menu = document.querySelector('[data-lang-menu]');
  if (!menu) return;
  const links = [...menu.querySelectorAll('[data-lang-link]')].map((link) => ({
    link,
    target: new URL(link.getAttribute('href'), location.href),
  }));
  const summary = menu.querySelector('summary');
  const refresh = () => {
    const place = readingPlace();
    for (const { link, target } of links) link.href = `${target.pathname}${location.search}${place ? `#${place}` : ''}`;
  };
  // Where the reader is when they reach for the menu (mouse down, or keyboard focus on its button), not when they
  // pick a link: opening the menu ends the hold on a linked section (holdLinkedSection), and anything that moves
  // the page after that (a widget growing) must not change the section.
  for (const type of ['pointerdown', 'focus']) summary.addEventListener(type, refresh);
  // A menu closes on Escape (focus back on its button) and when the reader clicks or focuses elsewhere.
  menu.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !menu.open) return;
    menu.open = false;
    summary.focus();
  });
  for (const type of ['pointerdown', 'focusin']) {
    document.addEventListener(type, (event) => {
      if (menu.open && !menu.contains(event.target)) menu.open = false;
    });
  }
}

/**
 * The widgets grow as they load and as their first results arrive (their text readouts), which would push a
 * linked section (#id) out of view, on opening a link and after a contents link alike. Until the reader scrolls,
 * clicks or types, keep the linked heading at the top whenever the page resizes. A click ends it without a
 * pointer or key before it (a screen reader's default action, a script's element.click()), and so does a widget
 * that keeps another element in view (keep-in-view.js: the model table handing a block to the placement lab). The
 * hold ends after HOLD_LIMIT_MS at the latest: a reader who drags the scroll bar sends none of those events. (A
 * slow machine took more than 4 s to show the first results near a section, so the limit is generous.)
 */
const HOLD_LIMIT_MS = 15000;

/** The element id a fragment names, or '' where its percent-encoding is broken (`#%`): no element then. */
export function linkedId(hash) {
  try {
    return decodeURIComponent(hash.slice(1));
  } catch {
    return '';
  }
}

function holdLinkedSection() {
  let releaseHeld = () => {};
  const hold = () => {
    releaseHeld();
    const target = location.hash && document.getElementById(linkedId(location.hash));
    if (!target) return;
    // Only a real change of height moves the page: observe() reports the current size at once, and jumping
    // then would cut short the smooth scroll a contents link starts.
    let height = null;
    const resizes = new ResizeObserver(([entry]) => {
      const previous = height;
      height = entry.contentRect.height;
      if (previous !== null && height !== previous) target.scrollIntoView({ block: 'start', behavior: 'instant' });
    });
    const ends = [...READER_MOVES, KEEP_IN_VIEW_EVENT];
    const release = () => {
      resizes.disconnect();
      clearTimeout(timer);
      for (const type of ends) removeEventListener(type, release, true);
    };
    resizes.observe(document.body);
    for (const type of ends) addEventListener(type, release, { capture: true, passive: true });
    const timer = setTimeout(release, HOLD_LIMIT_MS);
    releaseHeld = release;
  };
  hold();
  addEventListener('hashchange', hold);
}

/**
 * The chapter's sections below the first screen are skipped by the first layout (content-visibility in
 * page.css), which would otherwise lay out the whole chapter in one task. Once the document has loaded, each
 * section is opened in its turn, in the order of the text, with its blocks (paragraphs, formulas) still skipped;
 * the blocks are then laid out a few at a time, one batch per frame, up to about PIECE_ELEMENTS elements, so that
 * no frame lays out a long section in one piece. A widget's section and block are laid out as soon as the widget
 * starts its first drawing (the residual-lab:drawing event): its numbers are rendered text as soon as it shows
 * them, and a widget that draws in pieces (LabElement.inLaterFrame) is laid out piece by piece. Once every block
 * is laid out, the page behaves as if nothing had been skipped (heights, scroll anchoring, rendered text).
 *
 * A formula or code block wider than the column scrolls sideways, and a scroll box is a tab stop (so keyboard
 * users can scroll it): such a block gets a name saying what it is; one that fits is no tab stop and has none.
 * Checked as its block is laid out, and again when the column's width changes.
 */
const PIECE_ELEMENTS = 150;

/**
 * The turns of the chapter's layout, in the order of the text: { open, blocks } sets data-laid-out on the section
 * `open` (if any) and on `blocks`. The introduction (outside any section, never skipped) comes first, to be
 * labelled; then each section opens, and its blocks follow in batches of up to PIECE_ELEMENTS elements.
 */
function layoutTurns(article) {
  const turns = [{ open: null, blocks: [...article.children].filter((child) => !child.matches('.chapter-section')) }];
  for (const section of article.querySelectorAll('.chapter-section')) {
    turns.push({ open: section, blocks: [] });
    let batch = null;
    let elements = 0;
    for (const block of section.children) {
      const size = 1 + block.getElementsByTagName('*').length;
      if (!batch || elements + size > PIECE_ELEMENTS) {
        batch = { open: null, blocks: [] };
        turns.push(batch);
        elements = 0;
      }
      batch.blocks.push(block);
      elements += size;
    }
  }
  return turns;
}

function layOutSectionsInTurn() {
  const language = languageCode(document.documentElement.lang);
  let ui = null;
  const uiLoaded = loadLanguage(language).then(() => (ui = stringsOf(language, 'page')));
  const label = (blocks) => {
    if (!ui) {
      uiLoaded.then(() => label(blocks)); // the boxes of the first turns are labelled when the texts arrive
      return;
    }
    const scrolls = blocks.map((block) => block.scrollWidth > block.clientWidth + 1); // every read before a write: one layout
    blocks.forEach((block, i) => {
      if (scrolls[i]) {
        block.tabIndex = 0;
        block.setAttribute('role', 'group');
        block.setAttribute('aria-label', block.localName === 'pre' ? ui.codeScrolls : ui.formulaScrolls);
      } else {
        block.removeAttribute('tabindex');
        block.removeAttribute('role');
        block.removeAttribute('aria-label');
      }
    });
  };
  // From DOMContentLoaded, when the widgets' module has run (the sections wait for it, not the other way round)
  // and the chapter is parsed (the offline file runs this script in <head>).
  const start = () => {
    const article = document.querySelector('article');
    if (!article) return;
    const turns = layoutTurns(article);
    const scrollBoxes = (blocks) =>
      blocks.flatMap((block) =>
        [...block.querySelectorAll('.math-display, pre')].concat(block.matches('.math-display, pre') ? [block] : []),
      );
    let round = 0; // a new width starts a new round of turns; the old round stops
    const layOutAll = () => {
      const thisRound = ++round;
      article.removeAttribute('data-laid-out');
      const pending = turns.slice();
      let laidOut = []; // the blocks of the last turn, laid out by the frame since: read without a layout of their own
      const next = () => {
        if (thisRound !== round) return;
        label(scrollBoxes(laidOut));
        if (!pending.length) {
          article.setAttribute('data-laid-out', ''); // every block laid out and labelled
          return;
        }
        const { open, blocks } = pending.shift();
        open?.setAttribute('data-laid-out', '');
        for (const block of blocks) block.setAttribute('data-laid-out', '');
        laidOut = blocks;
        nextFrame().then(next); // one turn per frame: each laid out in a frame of its own
      };
      next();
    };
    article.addEventListener('residual-lab:drawing', ({ target }) => {
      target.closest('.chapter-section')?.setAttribute('data-laid-out', '');
      target.closest('.chapter-section > *')?.setAttribute('data-laid-out', '');
    });
    // Reported once laid out, then on every change of size; only the width changes what scrolls.
    let width = null;
    new ResizeObserver(([entry]) => {
      if (entry.contentRect.width === width) return;
      width = entry.contentRect.width;
      layOutAll();
    }).observe(article);
  };
  if (document.readyState === 'loading') addEventListener('DOMContentLoaded', start, { once: true });
  else start();
}

/**
 * Printing computes what it prints. Ctrl+P (Cmd+P) waits until every figure that computes by itself has run
 * (widgets' computeForPrint), saying so, then opens the print dialog; a print from the browser's menu cannot be
 * held, so it starts those runs (the figures that compute on the page's thread are drawn in time, a second
 * print has the rest).
 */
function computeBeforePrinting() {
  const figures = () => [...document.querySelectorAll('*')].filter((el) => typeof el.computeForPrint === 'function');
  addEventListener('beforeprint', () => {
    for (const figure of figures()) figure.computeForPrint();
  });
  let waiting = false;
  addEventListener('keydown', async (event) => {
    if (event.key.toLowerCase() !== 'p' || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
    event.preventDefault();
    if (waiting) return;
    waiting = true;
    const language = languageCode(document.documentElement.lang);
    await loadLanguage(language);
    const ui = stringsOf(language, 'page');
    const note = Object.assign(document.createElement('p'), {
      className: 'print-wait',
      textContent: ui.computingForPrint,
    });
    note.setAttribute('role', 'status');
    document.body.append(note);
    try {
      await Promise.all(figures().map((figure) => figure.computeForPrint()));
    } finally {
      note.remove();
      waiting = false;
    }
    print();
  });
}

setupTheme();
foldContentsOnNarrowScreens();
openWidgetLinksInPlace();
computeBeforePrinting();
layOutSectionsInTurn();
setupTableOfContents();
setupLanguageMenu();
holdLinkedSection();
