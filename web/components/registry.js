// The widgets of Residual Lab, one row each: the one home of what other files need to know about a widget, and
// the only file that names them. The site build writes components/widget-modules.js from it (the modules,
// imported statically: one bundle), components/index.js defines the widgets in this order (the attribute
// reference follows it), the chapter build refuses an unknown tag and marks the known ones for page.css,
// embed.html and embed-example.html list them, the share menu's iframe code and the documented frame heights
// take `frameHeight`, and the scripts and browser tests iterate over them. Pure data: node imports it too.
//
//   tag          the custom element's name (its class's static tag). Everything the widget alone uses lives in
//                one folder named after the tag without "rl-" (widgetName): the element's module, named like
//                the folder (vector-lab/vector-lab.js, widgetModule; the build's widget-modules.js imports it),
//                its compute modules and its CSS. What two widgets share is in shared/.
//   stateKey     the prefix of the widget's settings in the page address (vec.x, vec2.x for a second one on the
//                page; lab-element.js stateKey, which the `state-key` attribute overrides), one per widget
//   section      the chapter section (heading id) the widget sits in; null for <rl-self-check>, which closes
//                every section that has exercises (its `set` attribute names the section)
//   worker       'in-view': computes in a worker as soon as it nears the viewport; 'on-run': starts a worker
//                on its Run button only; null: draws on the page's thread, without a worker
//   frameHeight  the height (px) of an iframe of embed.html?widget=<name> that holds the widget at 800 px wide,
//                in English, after its first computation, with some room (tests/e2e/embed.test.mjs measures it)
//   example      attributes of an example that differs from the defaults (for example pages and the tests
//                that set attributes on a drawn widget)
export const WIDGETS = [
  {
    tag: 'rl-vector-lab',
    stateKey: 'vec',
    section: 'normalization',
    worker: null,
    frameHeight: 1660,
    example: { x: '3, 4' },
  },
  {
    tag: 'rl-precision-lab',
    stateKey: 'prec',
    section: 'precision-and-gemma',
    worker: null,
    frameHeight: 1200,
    example: { seed: '7' },
  },
  {
    tag: 'rl-gemma-trap',
    stateKey: 'gemma',
    section: 'precision-and-gemma',
    worker: null,
    frameHeight: 1000,
    example: { checkpoint: 'llama' },
  },
  {
    tag: 'rl-softcap-explorer',
    stateKey: 'cap',
    section: 'softcap',
    worker: null,
    frameHeight: 1200,
    example: { cap: '50' },
  },
  {
    tag: 'rl-gradient-flow',
    stateKey: 'grad',
    section: 'why-residuals',
    worker: 'in-view',
    frameHeight: 1360,
    example: { layers: '8', gain: '0.8' },
  },
  {
    tag: 'rl-qk-norm-lab',
    stateKey: 'qk',
    section: 'qk-norm',
    worker: 'in-view',
    frameHeight: 1040,
    example: { layers: '3' },
  },
  {
    tag: 'rl-init-scaling',
    stateKey: 'init',
    section: 'init-and-depth',
    worker: 'in-view',
    frameHeight: 980,
    example: { 'max-depth': '32' },
  },
  {
    tag: 'rl-residual-growth',
    stateKey: 'growth',
    section: 'residual-stream',
    worker: 'in-view',
    frameHeight: 1420,
    example: { placement: 'post' },
  },
  {
    tag: 'rl-checkpoint-probe',
    stateKey: 'probe',
    section: 'residual-stream',
    worker: 'in-view',
    frameHeight: 2400,
    example: { toy: 'toy-olmo2' },
  },
  {
    tag: 'rl-placement-lab',
    stateKey: 'place',
    section: 'placement',
    worker: 'in-view',
    frameHeight: 1100,
    example: { 'zero-qk': 'true' },
  },
  {
    tag: 'rl-warmup-race',
    stateKey: 'warm',
    section: 'placement',
    worker: 'on-run',
    frameHeight: 980,
    example: { 'warmup-steps': '30' },
  },
  {
    tag: 'rl-model-table',
    stateKey: 'models',
    section: 'model-table',
    worker: 'on-run',
    frameHeight: 740,
    example: { model: 'olmo2' },
  },
  {
    tag: 'rl-config-inspector',
    stateKey: 'cfg',
    section: 'model-table',
    worker: null,
    frameHeight: 1900,
    example: { config: '{"model_type": "qwen3", "num_hidden_layers": 36}' },
  },
  {
    tag: 'rl-forward-reader',
    stateKey: 'fwd',
    section: 'summary',
    worker: null,
    frameHeight: 1140,
    example: { snippet: 'olmo2' },
  },
  {
    tag: 'rl-self-check',
    stateKey: 'check',
    section: null,
    worker: null,
    frameHeight: 600,
    example: { set: 'softcap' },
  },
];

/** The tags, in the registry's order. */
export const WIDGET_TAGS = WIDGETS.map((widget) => widget.tag);

/**
 * The widget's name, its tag without "rl-": what embed.html takes (`embed.html?widget=vector-lab`) and the folder
 * under web/components/ that holds everything the widget alone uses.
 */
export const widgetName = (widget) => widget.tag.replace(/^rl-/, '');

/** The module that defines the widget's element, relative to web/components/: <folder>/<folder>.js. */
export const widgetModule = (widget) => `${widgetName(widget)}/${widgetName(widget)}.js`;

/** The row of a tag, or undefined. */
export const widgetOf = (tag) => WIDGETS.find((widget) => widget.tag === tag);
