// <rl-config-inspector>: paste a Hugging Face config.json and read it as the chapter teaches (lab.inspectConfig):
// the fields that exist for numerical stability, whether the architecture's code has QK-Norm (for an architecture
// it does not know, what the config's QK-Norm field says, if it has one), every norm with its count, size and
// parameters, their share of the model, and the block drawn (shared/block-diagram.js) from the architecture's layout.
import { CONFIG_EXAMPLES, exampleText } from '../shared/config-examples.js';
import { blockDiagram } from '../shared/block-diagram.js';
import { h } from '../shared/dom.js';
import { formatCount as count, formatPercent, shownConfigValue as shownValue } from '../shared/format.js';
import { textField } from '../shared/fields.js';
import { describeError } from '../shared/i18n.js';
import { LabElement } from '../shared/lab-element.js';
import { stringsOf } from '../../languages.js';
import { BLOCK_DIAGRAM_CSS } from '../shared/styles.js';

const MAX_CONFIG_CHARS = 1_048_576; // what inspectConfig reads; a link carries it compressed (state.js)

export class RlConfigInspector extends LabElement {
  static tag = 'rl-config-inspector';
  static stateRows = [{ name: 'config', type: 'text', maxLength: MAX_CONFIG_CHARS, default: exampleText('llama') }];
  static styles = [BLOCK_DIAGRAM_CSS, new URL('./config-inspector.css', import.meta.url)];

  build() {
    const s = this.strings;
    this.field = textField({
      name: 'config-json',
      label: s.field,
      multiline: true,
      value: this.state.config,
      onInput: (text) => this.inspect(text),
    });
    this.field.input.rows = 12;
    const examples = h(
      'div',
      { class: 'presets', role: 'group', 'aria-label': s.examples },
      CONFIG_EXAMPLES.map((e) =>
        h('button', { type: 'button', 'data-example': e.id, onclick: () => this.pickExample(e.id) }, e.name),
      ),
    );
    this.summary = h('p', { class: 'architecture' });
    this.fieldsBody = h('tbody', {});
    this.fieldsTable = h(
      'table',
      { class: 'values config-fields', 'aria-labelledby': 'fields-title' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          s.fieldHead.map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      this.fieldsBody,
    );
    this.noFields = h('p', { class: 'hint' }, s.noFields);
    this.qk = h('p', { class: 'qk-norm' });
    this.normsBody = h('tbody', {});
    this.normsTable = h(
      'table',
      { class: 'values config-norms', 'aria-labelledby': 'norms-title' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          s.normHead.map((t, i) => h('th', { scope: 'col', class: i ? 'number' : null }, t)),
        ),
      ),
      this.normsBody,
    );
    this.share = h('p', { class: 'share' });
    this.notes = h('ul', { class: 'notes' });
    this.layout = h('figure', { class: 'config-layout' });
    this.body.append(
      h(
        'header',
        { class: 'widget-header' },
        h('h3', {}, s.title),
        h('p', { class: 'hint' }, s.hint, ' ', this.sectionLink('model-table', s.sectionLink)),
      ),
      this.field.root,
      examples,
      (this.results = this.resultsRegion(
        this.summary,
        h('h4', { id: 'fields-title' }, s.fieldsTitle),
        h('div', { class: 'table-scroll' }, this.fieldsTable),
        this.noFields,
        h('h4', {}, s.qkTitle),
        this.qk,
        h('h4', { id: 'norms-title' }, s.normsTitle),
        h('div', { class: 'table-scroll' }, this.normsTable),
        this.share,
        this.notes,
        this.layout,
      )),
    );
    this.results.hidden = true; // until a config has been read: a link may open on a broken one
  }

  pickExample(id) {
    this.field.input.value = exampleText(id);
    this.inspect(this.field.input.value);
    this.field.input.focus();
  }

  /** Draws `text` and records it for the link. */
  inspect(text) {
    this.draw(text);
    this.commit({ config: text });
  }

  update() {
    this.draw(this.field.input.value);
  }

  /**
   * Inspects `text`; a problem shows under the field and the last good reading stays, marked stale. With no
   * reading yet there is nothing to mark: the results stay hidden rather than a "last valid" frame over blanks.
   */
  draw(text) {
    const s = this.strings;
    let r;
    try {
      r = this.lab.inspectConfig(text);
    } catch (error) {
      const say = s.errors[error.code];
      this.field.setError(typeof say === 'function' ? say(error) : (say ?? describeError(error, this.language)));
      this.markStale(!this.results.hidden, this.field);
      this.dataset.error = error.code ?? 'error';
      return;
    }
    this.field.setError(null);
    this.markStale(false, this.field);
    this.results.hidden = false;
    delete this.dataset.error;
    this.dataset.architecture = r.architecture ?? '';
    this.summary.replaceChildren(
      h('strong', {}, s.architecture),
      r.architecture ? s.known(r.architecture, r.source) : s.unknown(r.modelType),
      r.textConfig ? s.multimodal(r.modelType, r.textConfig) : '',
    );
    this.fieldsBody.replaceChildren(
      ...r.fields.map((f) =>
        h(
          'tr',
          { 'data-field': f.name },
          h('td', {}, h('code', {}, f.path)),
          h('td', { class: 'value' }, h('code', {}, shownValue(f.value))),
          h('td', {}, s.fieldText[f.name] ?? s.groups[f.group], f.source === 'default' ? s.defaultValue : ''),
        ),
      ),
    );
    this.fieldsTable.hidden = !r.fields.length;
    this.noFields.hidden = r.fields.length > 0;
    const qkFlag = r.notes.find((n) => n.code === 'qk_norm_flag');
    this.qk.textContent =
      r.layout !== null
        ? r.layout.qkNorm
          ? s.qkYes
          : s.qkNo
        : qkFlag
          ? s.qkFromFlag(qkFlag.field, qkFlag.value)
          : s.qkUnknown;
    this.normsTable.hidden = r.normParams === null;
    this.normsBody.replaceChildren(
      ...r.norms.map((n) =>
        h(
          'tr',
          { 'data-norm': n.name },
          h('td', {}, h('code', {}, n.name)),
          h('td', { class: 'number' }, count(n.count)),
          h('td', { class: 'number' }, count(n.size)),
          h('td', { class: 'number' }, s.tensors(n.tensors)),
          h('td', { class: 'number' }, count(n.params)),
        ),
      ),
      r.normParams === null
        ? []
        : h(
            'tr',
            { class: 'total' },
            h('th', { scope: 'row' }, s.total),
            h('td', { class: 'number' }, count(r.normCount)),
            h('td', {}),
            h('td', {}),
            h('td', { class: 'number', 'data-norm-params': r.normParams }, count(r.normParams)),
          ),
    );
    const missing = r.notes.find((n) => n.code === 'cannot_count');
    this.share.textContent =
      r.normParams !== null
        ? s.share(count(r.normParams), count(r.totalParams), formatPercent(r.normShare))
        : missing
          ? s.missing(missing.field)
          : s.cannotCount;
    this.notes.replaceChildren(
      ...r.notes
        .filter((n) => s.notes[n.code])
        .map((n) => h('li', {}, typeof s.notes[n.code] === 'function' ? s.notes[n.code](n) : s.notes[n.code])),
    );
    this.layout.hidden = r.layout === null;
    if (r.layout) {
      const config = {
        ...r.layout,
        attnSoftcap: fieldValue(r, 'attn_logit_softcapping'),
        finalSoftcap: fieldValue(r, 'final_logit_softcapping'),
      };
      const n = fieldValue(r, 'num_hidden_layers') ?? fieldValue(r, 'n_layer');
      this.layout.replaceChildren(
        h('figcaption', {}, s.layoutTitle),
        blockDiagram(config, stringsOf(this.language, 'block-diagram'), {
          nLayers: n,
          attnExtras: r.norms.filter((x) => x.slot === 'mla').map((x) => x.name.replace(/^self_attn\./, '')),
        }),
      );
    }
  }
}

const fieldValue = (r, name) => r.fields.find((f) => f.name === name)?.value ?? null;
