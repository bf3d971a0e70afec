// The deck is laid out for a 960 x 600 slide (16:10, a projector's and a laptop's shape); reveal.js scales it to
// the window with a CSS transform, which the widgets' charts and sliders must follow (pointer positions are
// measured on the scaled page). At 1280 x 800 that is 1.3, so the widgets' smallest text (11-12 px on the page)
// reads at 14 px or more from the back of a room. A widget taller than its slide scrolls inside it (slides.css).
Reveal.initialize({ hash: true, width: 960, height: 600, margin: 0.02, center: false, transition: 'none' });
