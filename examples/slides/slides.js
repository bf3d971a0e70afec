// The deck is laid out for a 1200 x 1500 slide; reveal.js scales it to the window with a CSS transform, which the
// widgets' charts and sliders must follow (pointer positions are measured on the scaled page).
Reveal.initialize({ hash: true, width: 1200, height: 1500, margin: 0.02, center: false, transition: 'none' });
