// <rl-model-table>: the chapter's "What the models chose", live. Choose a model and its decoder layer is drawn
// (shared/block-diagram.js) from its decoder config (lib/models.js), validated against the engine's option
// table. "Run this block" hands the placement to the page's <rl-placement-lab> (selectPlacements), keeps it in
// view and moves the focus there; embedded without one, it runs the block's stack at a small size here (experiments.initGradients in a worker).
import { resolveOptions } from '../../lib/options.js';
import { MODELS, modelById, decoderConfig } from '../../lib/models.js';
import { ExperimentElement } from '../shared/experiment-element.js';
import { blockDiagram, blockLayout } from '../shared/block-diagram.js';
import { h } from '../shared/dom.js';
import { radioGroup } from '../shared/fields.js';
import { keepInView } from '../shared/keep-in-view.js';
import { formatScientific, shownConfigValue } from '../shared/format.js';
import { stringsOf } from '../../languages.js';
import { BLOCK_DIAGRAM_CSS } from '../shared/styles.js';

const STACK_LAYERS = 8;
const STACK_WIDTH = 64;
const PLACEMENT_LAB = 'rl-placement-lab';
const RUN_WAIT_MS = 60_000; // a hand-over keeps the lab in view at most this long before its run ends

export class RlModelTable extends ExperimentElement {
  static tag = 'rl-model-table';
  static stateRows = [{ name: 'model', type: 'choice', choices: MODELS.map((m) => m.id), default: 'llama3' }];
  static styles = [...ExperimentElement.styles, BLOCK_DIAGRAM_CSS, new URL('./model-table.css', import.meta.url)];

  build() {
    const s = this.strings;
    const picker = this.control('model', {
      field: radioGroup,
      label: s.models,
      across: true,
      options: MODELS.map((m) => ({ value: m.id, label: s.modelNames[m.id] ?? m.name })),
    });
    this.facts = h('dl', { class: 'model-facts' });
    this.diagram = h('figure', { class: 'model-diagram' });
    this.runButton = h('button', { type: 'button', class: 'run-block', onclick: () => this.runBlock() }, s.runHere);
    this.handover = h('p', { class: 'handover', role: 'status' });
    this.stackCaption = h('h4', { id: 'stack-title' });
    this.stackTable = h('tbody', {});
    this.stackResult = h(
      'div',
      { class: 'stack-result', hidden: true },
      this.stackCaption,
      h(
        'table',
        { class: 'values', 'aria-labelledby': 'stack-title' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col', class: 'number' }, s.layer),
            h('th', { scope: 'col', class: 'number' }, s.gradNorm),
          ),
        ),
        this.stackTable,
      ),
      h('p', { class: 'hint' }, s.stackNote),
    );
    this.body.append(
      this.experimentHeader('model-table'),
      picker.root,
      h('div', { class: 'model-view' }, this.facts, this.diagram),
      h('div', { class: 'run-row' }, this.runButton, this.handover),
      this.runner.root,
      (this.stackRegion = this.resultsRegion(this.stackResult)),
    );
  }

  /** The page's placement lab, if there is one (a widget embedded alone has none). */
  get placementLab() {
    return document.querySelector(PLACEMENT_LAB);
  }

  get model() {
    return modelById(this.state.model);
  }

  update() {
    const s = this.strings;
    const model = this.model;
    const config = resolveOptions(
      this.lab.describe().decoder,
      { ...decoderConfig(model), nLayers: STACK_LAYERS },
      { where: 'config' },
    );
    const layout = blockLayout(config);
    const qk = layout.sublayers[0].qkNorm;
    const diagramStrings = stringsOf(this.language, 'block-diagram');
    const row = (term, ...detail) => [h('dt', {}, term), h('dd', {}, ...detail)];
    this.facts.replaceChildren(
      ...row(s.norm, diagramStrings.norm[config.norm]),
      ...row(s.eps, model.eps === null ? s.noEps : h('code', {}, shownConfigValue(model.eps))),
      ...row(s.placement, s.placements[config.placement]),
      ...row(s.normsPerLayer, s.normCount(layout.normsPerLayer - (qk ? 2 : 0), qk, model.extraNorms)),
      ...row(
        s.features,
        model.features.length
          ? h(
              'ul',
              {},
              model.features.map((f) => h('li', {}, s.featureText[f])),
            )
          : s.none,
      ),
    );
    this.diagram.replaceChildren(
      h('figcaption', {}, s.diagram(s.modelNames[model.id] ?? model.name)),
      blockDiagram(config, diagramStrings, { attnExtras: model.extraNormNames }),
    );
    this.diagram.dataset.model = model.id;
    const handsOver = Boolean(this.placementLab);
    this.runButton.textContent = handsOver ? s.runInLab : s.runHere;
    this.runner.root.hidden = handsOver; // the small run happens here only without a placement lab on the page
    this.stackRegion.hidden = handsOver;
    this.stackResult.hidden = this.stackResult.dataset.model !== model.id; // a run of another model's block goes
    this.handover.textContent = '';
  }

  async runBlock() {
    const model = this.model;
    const lab = this.placementLab;
    if (lab) {
      await customElements.whenDefined(PLACEMENT_LAB);
      await whenReady(lab);
      const settled = runSettled(lab);
      const { placement, norm, qkNorm } = model.layout;
      lab.selectPlacements([placement], { norm, qkNorm });
      // The lab may still move after the jump (the sections above it laid out, widgets there drawing their first
      // results, its own results replacing the last): keep it in view until the reader moves, and take the focus
      // there with them.
      keepInView(lab, { until: settled });
      lab.focusPlacement(placement);
      const diagramStrings = stringsOf(this.language, 'block-diagram');
      this.handover.textContent = this.strings.handedOver(
        this.strings.handoverPlacement[placement],
        diagramStrings.norm[norm],
        qkNorm,
      );
      return;
    }
    const { placement, norm, qkNorm } = model.layout;
    const results = await this.runner.run([
      [
        'experiments.initGradients',
        { placements: [placement], norm, qkNorm, nLayers: STACK_LAYERS, dModel: STACK_WIDTH, depths: [STACK_LAYERS] },
      ],
    ]);
    if (!results) return;
    const [r] = results;
    this.stackCaption.textContent = this.strings.stackTitle(
      r.layers,
      this.strings.modelNames[model.id] ?? model.name,
      STACK_WIDTH,
    );
    this.stackTable.replaceChildren(
      ...Array.from(r.perLayer[placement].mlpDown, (value, layer) =>
        h(
          'tr',
          {},
          h('td', { class: 'number' }, String(layer + 1)),
          h('td', { class: 'number' }, h('data', { value }, formatScientific(value, 3).text)),
        ),
      ),
    );
    this.stackResult.dataset.placement = placement;
    this.stackResult.dataset.model = model.id;
    this.stackResult.hidden = this.state.model !== model.id;
  }
}

/** Resolves when `lab`'s next run ends (its data-status leaves "running"), or after RUN_WAIT_MS. */
function runSettled(lab) {
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (lab.dataset.status === 'running') return;
      observer.disconnect();
      resolve();
    });
    observer.observe(lab, { attributes: true, attributeFilter: ['data-status'] });
    setTimeout(() => {
      observer.disconnect();
      resolve();
    }, RUN_WAIT_MS);
  });
}

/** Resolves once `element` (a LabElement) has drawn for the first time. */
function whenReady(element) {
  if (element.hasAttribute('data-ready')) return Promise.resolve();
  return new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (!element.hasAttribute('data-ready')) return;
      observer.disconnect();
      resolve();
    });
    observer.observe(element, { attributes: true, attributeFilter: ['data-ready'] });
  });
}
