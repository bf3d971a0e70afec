// <rl-forward-reader>: a decoder layer's forward() beside the block its config builds; the reader names the
// layout; the diagram, which shows the layout, appears with the answer. The answer is checked against the snippet's decoder config as the engine's option table resolves it
// (shared/forward-logic.js), the explanation quotes the engine's formula for each placement, and every line is
// linked to the diagram element it computes (hover or focus either side).
import { blockDiagram } from '../shared/block-diagram.js';
import { h } from '../shared/dom.js';
import { radioGroup } from '../shared/fields.js';
import { LabElement } from '../shared/lab-element.js';
import { keysOf, markDiagram } from './diagram-link.js';
import {
  checkPlacement,
  decisiveLines,
  lineKeys,
  placementFormulas,
  placementRow,
  snippetConfig,
} from '../shared/forward-logic.js';
import { SNIPPETS, SNIPPET_IDS } from '../shared/forward-snippets.js';
import { stringsOf } from '../../languages.js';
import { BLOCK_DIAGRAM_CSS } from '../shared/styles.js';

const STATE = [{ name: 'snippet', type: 'choice', choices: SNIPPET_IDS, default: SNIPPET_IDS[0] }];
const WRONG_BEFORE_REVEAL = 2;

export class RlForwardReader extends LabElement {
  static tag = 'rl-forward-reader';
  static stateRows = STATE;
  static styles = [BLOCK_DIAGRAM_CSS, new URL('./forward-reader.css', import.meta.url)];

  build() {
    const s = this.strings;
    const tables = this.lab.describe();
    this.formulas = placementFormulas(tables);
    this.choices = placementRow(tables).choices;
    const picker = radioGroup({
      name: 'snippet',
      legend: s.snippet,
      value: this.state.snippet,
      across: true,
      options: SNIPPETS.map((snippet) => ({ value: snippet.id, label: snippet.model })),
      onChange: (id) => this.setState({ snippet: id }),
    });
    this.code = h('code', {});
    this.codeFigure = h('figure', { class: 'fr-code' }, h('figcaption', {}, ''), h('pre', {}, this.code));
    // The diagram shows where the norms sit, which is the answer: it appears with the answer.
    this.diagramHost = h('div', { class: 'fr-diagram-host', hidden: true });
    this.diagramWait = h('p', { class: 'fr-diagram-wait hint' }, s.diagramWait);
    this.answerGroup = h(
      'fieldset',
      {
        class: 'field radio-group fr-answer',
        onkeydown: (event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            this.check();
          }
        },
      },
      h('legend', {}, s.answer),
      this.choices.map((choice) => {
        const input = h('input', { type: 'radio', name: 'answer', value: choice, id: `answer-${choice}` });
        return h(
          'label',
          { class: 'radio', for: input.id },
          input,
          h('span', {}, s.placementNames[choice] ?? choice),
          ' ',
          h('code', { class: 'fr-formula' }, s.formulaIs(this.formulas[choice] ?? choice)),
        );
      }),
    );
    this.feedback = h('p', { class: 'fr-feedback', role: 'status', 'aria-live': 'polite' }); // verdict, then detail
    this.note = h('p', { class: 'fr-note', hidden: true });
    this.body.append(
      h(
        'header',
        { class: 'widget-header' },
        h('h3', {}, s.title),
        h('p', { class: 'hint' }, s.hint, ' ', this.sectionLink('read-forward', s.sectionLink)),
      ),
      picker.root,
      h(
        'div',
        { class: 'fr-grid' },
        this.codeFigure,
        h('figure', { class: 'fr-diagram' }, h('figcaption', {}, s.diagramTitle), this.diagramWait, this.diagramHost),
      ),
      this.answerGroup,
      h(
        'div',
        { class: 'fr-actions' },
        h('button', { type: 'button', class: 'fr-check', onclick: () => this.check() }, s.check),
      ),
      this.feedback,
      this.note,
    );
  }

  get snippet() {
    return SNIPPETS.find((snippet) => snippet.id === this.state.snippet);
  }

  update() {
    const s = this.strings;
    const snippet = this.snippet;
    this.wrongAnswers = 0;
    this.revealed = false;
    this.codeFigure.querySelector('figcaption').textContent = s.codeLabel(snippet.model);
    this.lines = snippet.lines.map((line, index) => {
      const keys = lineKeys(line);
      const linked = keys.length > 0;
      // The indent becomes padding (fr-indent-4 in the CSS), so a long line or role comment wraps
      // with a hanging indent instead of running out of the box.
      const indent = line.code.match(/^ */)[0].length;
      const role = h(
        'span',
        { class: 'fr-role', hidden: true },
        linked ? `# ${line.steps.map((step) => s.roles[step]).join('; ')}` : '',
      );
      const element = h(
        'span',
        {
          class: `fr-line fr-indent-${indent}${linked ? ' fr-link' : ''}`,
          'data-index': index,
          'data-keys': keys.join(' ') || null,
          tabindex: linked ? '0' : null,
        },
        h('span', { class: 'fr-text' }, line.code.slice(indent)),
        role,
      );
      if (linked) this.linkEvents(element);
      return { element, role };
    });
    this.code.replaceChildren(...this.lines.map((line) => line.element));
    this.config = snippetConfig(snippet, this.lab.describe());
    this.diagram = blockDiagram(this.config, stringsOf(this.language, 'block-diagram'));
    this.diagramSummary = this.diagram.getAttribute('aria-label');
    this.setDiagramLabel(s.diagramLabel);
    for (const element of markDiagram(this.diagram, (key) => this.partLabel(key))) this.linkEvents(element);
    this.diagramHost.replaceChildren(this.diagram);
    this.showDiagram(false);
    for (const input of this.answerGroup.querySelectorAll('input')) input.checked = false;
    this.say(null, '');
    this.note.hidden = true;
  }

  /** The diagram's accessible name: neutral until answered, the engine layout's summary after. */
  setDiagramLabel(text) {
    this.diagram.setAttribute('aria-label', text);
    this.diagram.querySelector('title').textContent = text;
  }

  partLabel(key) {
    const [sub, step] = key.split(':');
    return this.strings.diagramPart(this.strings.sublayers[sub], this.strings.roles[step]);
  }

  linkEvents(element) {
    const on = () => this.highlight(keysOf(element));
    const off = () => this.highlight([]);
    element.addEventListener('mouseenter', on);
    element.addEventListener('focus', on);
    element.addEventListener('mouseleave', off);
    element.addEventListener('blur', off);
  }

  /** Lights up every line and diagram element sharing one of `keys`. */
  highlight(keys) {
    const wanted = new Set(keys);
    for (const element of this.shadowRoot.querySelectorAll('.fr-link')) {
      const lit = keysOf(element).some((key) => wanted.has(key));
      element.classList.toggle('fr-lit', lit);
    }
  }

  check() {
    const s = this.strings;
    const snippet = this.snippet;
    const chosen = this.answerGroup.querySelector('input:checked')?.value;
    if (!chosen) {
      this.say('empty', s.pickFirst);
      return;
    }
    const { correct, expected } = checkPlacement(snippet, chosen, this.lab.describe());
    const name = (choice) => s.placementNames[choice] ?? choice;
    if (correct) {
      this.say('right', s.right(snippet.model, name(expected)), s.rightDetail(this.formulas[expected]));
      this.explain(true);
      return;
    }
    this.wrongAnswers += 1;
    const reveal = this.wrongAnswers >= WRONG_BEFORE_REVEAL;
    this.say(
      'wrong',
      s.wrong(name(chosen)),
      s.wrongDetail(this.formulas[chosen]),
      reveal ? s.revealed(snippet.model, name(expected), this.formulas[expected]) : null,
    );
    this.explain(reveal);
  }

  /** The announced feedback: a verdict in bold, then its explanation. */
  say(verdict, headline, ...details) {
    this.feedback.replaceChildren(
      ...(headline ? [h('strong', {}, headline)] : []),
      ...details.filter(Boolean).map((text) => ` ${text}`),
    );
    if (verdict) this.feedback.setAttribute('data-verdict', verdict);
    else this.feedback.removeAttribute('data-verdict');
  }

  /** Marks the deciding lines; with `reveal`, also each line's role, the snippet's note and the diagram's name. */
  explain(reveal) {
    const decisive = new Set(decisiveLines(this.snippet));
    this.lines.forEach(({ element, role }, index) => {
      element.classList.toggle('fr-decisive', decisive.has(index));
      if (reveal) role.hidden = role.textContent === '';
    });
    if (!reveal) return;
    this.revealed = true;
    this.note.textContent = this.strings.notes[this.snippet.id];
    this.note.hidden = false;
    this.setDiagramLabel(this.diagramSummary);
    this.showDiagram(true);
  }

  showDiagram(shown) {
    this.diagramHost.hidden = !shown;
    this.diagramWait.hidden = shown;
  }
}
