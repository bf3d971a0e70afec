// Sets the page theme before the first paint as <html data-theme="light|dark">, the one attribute page.css keys
// its dark palette on: the reader's saved choice, else the system's preference. A classic script loaded in
// <head>: the CSP allows no inline script, and a module would run after the page has already been painted in the
// wrong theme. From then on shell/page.js keeps the attribute in step with the toggle and the system.
(function applyTheme() {
  var saved = null;
  try {
    saved = localStorage.getItem('residual-lab-theme');
  } catch (error) {
    // Storage can be unavailable (privacy settings); the system's preference then decides.
  }
  var systemDark = matchMedia('(prefers-color-scheme: dark)').matches;
  var theme = saved === 'light' || saved === 'dark' ? saved : systemDark ? 'dark' : 'light';
  document.documentElement.setAttribute('data-theme', theme);
})();

// Opened from disk (file://), the page's modules cannot run: <html data-file-protocol> shows the note
// (.file-note, page.css) that points to the single-file version in offline/.
if (location.protocol === 'file:') document.documentElement.setAttribute('data-file-protocol', '');
