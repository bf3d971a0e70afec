// Applies the reader's saved theme before the first paint. A classic script loaded in <head>: the CSP allows no
// inline script, and a module would run after the page has already been painted in the wrong theme.
(function applySavedTheme() {
  try {
    var saved = localStorage.getItem('residual-lab-theme');
    if (saved === 'light' || saved === 'dark') document.documentElement.setAttribute('data-theme', saved);
  } catch (error) {
    // Storage can be unavailable (privacy settings); the system's preference then decides.
  }
})();
