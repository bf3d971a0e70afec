// <rl-softcap-explorer>: softcap(x) = c·tanh(x/c) against the identity and a hard clip, its gradient, and the
// chapter's table (cap 30 at 10, 30, 60, 200; cap 50 at 100) computed live, with the cap editable.
// The softcap values and gradients come from lab.softcap / lab.softcapBackward; the identity and the clip are
// the comparison lines (min(max(x, -c), c) and its 0-or-1 slope), drawn from their definitions.
import { h } from '../shared/dom.js';
import { rangeField, textField } from '../shared/fields.js';
import { formatFixed, formatTrimmed } from '../shared/format.js';
import { widgetError } from '../shared/i18n.js';
import { LabElement } from '../shared/lab-element.js';
import { axis, lineChart } from '../shared/line-chart.js';
import { formula } from '../shared/formula.js';
import { parseNumber } from '../shared/parse-number.js';
import { uplotCssUrl } from '../shared/styles.js';

const X_MAX = 200;
const CURVE_X = Float32Array.from({ length: 2 * X_MAX + 1 }, (_, i) => i - X_MAX);
const TABLE_X = Float32Array.of(10, 30, 60, 100, 200);
const CHAPTER_CAPS = [30, 50];

// The one range of the cap: the field accepts what the URL takes back, so a shared link reproduces the view.
// 0.01 is the smallest: there softcap is already a step of ±c over the whole numbers plotted, and its y-axis ticks
// (at least 0.001 apart) keep fixed notation; below 0.001 they turn to 5 × 10⁻⁴, wider than the axis.
const STATE = [{ name: 'cap', type: 'number', default: 30, min: 0.01, max: 1000 }];

/** uPlot legend readout (v is null while the cursor is off the chart). */
const readout = (digits) => (u, v) => (v == null ? '–' : formatFixed(v, digits));

function parseCap(text, bounds) {
  const cap = parseNumber(text, { max: bounds.max });
  if (!(cap > 0)) throw widgetError('bad_cap');
  if (cap < bounds.min) throw widgetError('not_in_range', bounds);
  return cap;
}

// The slider moves the cap in whole numbers from 1 to 100; a cap outside sits at the nearest end.
const sliderPosition = (cap) => Math.min(100, Math.max(1, Math.round(cap)));

export class RlSoftcapExplorer extends LabElement {
  static tag = 'rl-softcap-explorer';
  static stateRows = STATE;
  static styles = [new URL('./softcap-explorer.css', import.meta.url), uplotCssUrl()];
  static charts = true; // line charts: their colours are read before the build (LabElement)

  build() {
    const s = this.strings;
    this.capField = textField({
      name: 'cap',
      label: s.cap,
      hint: s.capHint,
      value: String(this.state.cap),
      onInput: (text) => this.typeCap(text),
    });
    this.capSlider = rangeField({
      name: 'cap-slider',
      label: s.capSlider,
      min: 1,
      max: 100,
      step: 1,
      value: sliderPosition(this.state.cap),
      // a typed cap off the slider's whole numbers (0.01, 2.5, 500) is shown as it is, not as the nearest position
      valueText: (position) => String(position === sliderPosition(this.state.cap) ? this.state.cap : position),
      onInput: (cap) => {
        this.capField.input.value = String(cap);
        this.clearError(this.capField);
        this.setState({ cap });
      },
    });
    const presets = h(
      'div',
      { class: 'presets', role: 'group', 'aria-label': s.presetsLabel },
      CHAPTER_CAPS.map((cap) => h('button', { type: 'button', onclick: () => this.pickCap(cap) }, s.preset(cap))),
    );

    this.curve = lineChart({
      host: this,
      label: s.curveLabel(this.state.cap),
      height: 260,
      build: (color) => this.curveOptions(color),
    });
    this.gradient = lineChart({
      host: this,
      label: s.gradientLabel(this.state.cap),
      height: 150,
      build: (color) => this.gradientOptions(color),
    });
    this.tableHead = h('tr', {});
    this.tableBody = h('tbody', {});

    this.body.append(
      h(
        'header',
        { class: 'widget-header' },
        h('h3', {}, s.title),
        h('p', { class: 'hint' }, s.hint, ' ', this.sectionLink('softcap', s.sectionLink)),
      ),
      h(
        'div',
        { class: 'formulas' },
        formula('softcap', { display: true }),
        formula('softcapGradient', { display: true }),
      ),
      h('div', { class: 'inputs' }, this.capField.root, h('div', { class: 'field' }, this.capSlider.root, presets)),
      this.resultsRegion(
        h('figure', {}, h('figcaption', {}, s.curveTitle), this.curve.root),
        h('figure', {}, h('figcaption', {}, s.gradientTitle), this.gradient.root),
        h('h4', { id: 'table-title' }, s.tableTitle),
        h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            { class: 'values', 'aria-labelledby': 'table-title' },
            h('thead', {}, this.tableHead),
            this.tableBody,
          ),
        ),
      ),
    );
  }

  typeCap(text) {
    const cap = this.attempt(this.capField, () => parseCap(text, this.bounds('cap')), text);
    if (cap === undefined) return; // the message shows; the last good curve and table stay
    this.state.cap = cap; // before the slider shows it
    this.capSlider.set(sliderPosition(cap));
    this.setState({ cap });
  }

  pickCap(cap) {
    this.capField.input.value = String(cap);
    this.clearError(this.capField);
    this.state.cap = cap;
    this.capSlider.set(sliderPosition(cap));
    this.setState({ cap });
  }

  update() {
    const { lab, strings: s } = this;
    const { cap } = this.state;
    const ones = new Float32Array(CURVE_X.length).fill(1);
    const softcap = lab.softcap(CURVE_X, cap);
    const slope = lab.softcapBackward(CURVE_X, cap, ones).dx;
    const clip = CURVE_X.map((x) => Math.min(cap, Math.max(-cap, x)));
    const clipSlope = CURVE_X.map((x) => (Math.abs(x) < cap ? 1 : 0));
    this.curve.root.setAttribute('aria-label', s.curveLabel(cap));
    this.gradient.root.setAttribute('aria-label', s.gradientLabel(cap));
    this.curve.setData([CURVE_X, CURVE_X, clip, softcap]);
    this.gradient.setData([CURVE_X, new Float32Array(CURVE_X.length).fill(1), clipSlope, slope]);
    this.drawTable(cap);
  }

  drawTable(cap) {
    const { lab, strings: s } = this;
    const columns = [...CHAPTER_CAPS.map((c) => lab.softcap(TABLE_X, c)), lab.softcap(TABLE_X, cap)];
    const gradient = lab.softcapBackward(TABLE_X, cap, new Float32Array(TABLE_X.length).fill(1)).dx;
    this.tableHead.replaceChildren(
      ...[
        s.x,
        ...CHAPTER_CAPS.map(s.capColumn),
        s.yourCap(formatTrimmed(cap, 2)),
        s.gradientColumn(formatTrimmed(cap, 2)),
      ].map((text, i) => h('th', { scope: 'col', class: i ? 'number' : null }, text)),
    );
    this.tableBody.replaceChildren(
      ...Array.from(TABLE_X, (x, row) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row', class: 'number' }, String(x)),
          columns.map((values) => h('td', { class: 'number' }, formatFixed(values[row], 1))),
          h('td', { class: 'number' }, formatFixed(gradient[row], 3)),
        ),
      ),
    );
  }

  curveOptions(color) {
    const s = this.strings;
    return {
      scales: {
        x: { time: false, range: [-X_MAX, X_MAX] },
        y: { range: () => [-1.6 * this.state.cap, 1.6 * this.state.cap] },
      },
      axes: [axis(color, { label: 'x' }), axis(color, { size: 56 })],
      series: [
        { label: 'x', value: readout(0) },
        { label: s.identity, stroke: color('grey'), width: 1.5, dash: [2, 4], value: readout(1) },
        { label: s.clip, stroke: color('orange'), width: 2, dash: [8, 5], value: readout(1) },
        { label: s.softcap, stroke: color('blue'), width: 3, value: readout(1) },
      ],
      cursor: { drag: { x: false, y: false } },
    };
  }

  gradientOptions(color) {
    const s = this.strings;
    return {
      scales: { x: { time: false, range: [-X_MAX, X_MAX] }, y: { range: [0, 1.1] } },
      axes: [axis(color, { label: 'x' }), axis(color, { size: 56, splits: () => [0, 0.5, 1] })],
      series: [
        { label: 'x', value: readout(0) },
        { label: s.identity, stroke: color('grey'), width: 1.5, dash: [2, 4], value: readout(3) },
        { label: s.clip, stroke: color('orange'), width: 2, dash: [8, 5], value: readout(3) },
        { label: s.softcap, stroke: color('blue'), width: 3, value: readout(3) },
      ],
      cursor: { drag: { x: false, y: false } },
    };
  }
}
