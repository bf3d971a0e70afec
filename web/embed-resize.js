// For a page that frames Residual Lab widgets (embed.html): <script src=".../embed-resize.js"></script> makes each
// such iframe as tall as its widget, from the height the frame reports (message residual-lab:height).
addEventListener('message', (event) => {
  const { type, height } = event.data ?? {};
  if (type !== 'residual-lab:height' || !(height > 0 && height < 100000)) return;
  for (const frame of document.querySelectorAll('iframe'))
    if (frame.contentWindow === event.source) frame.style.height = `${Math.ceil(height)}px`;
});
