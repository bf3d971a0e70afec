// Registers every Residual Lab element. A page needs only
//   <script type="module" src=".../components/index.js"></script>
// and the tags; each element finds the lab (../lib/residual-lab.js) and its CSS (../styles/) relative to
// this folder, so the widgets work in any page that serves the built dist/ tree.
import { RlGemmaTrap } from './rl-gemma-trap.js';
import { RlGradientFlow } from './rl-gradient-flow.js';
import { RlInitScaling } from './rl-init-scaling.js';
import { RlPlacementLab } from './rl-placement-lab.js';
import { RlPrecisionLab } from './rl-precision-lab.js';
import { RlQkNormLab } from './rl-qk-norm-lab.js';
import { RlResidualGrowth } from './rl-residual-growth.js';
import { RlSoftcapExplorer } from './rl-softcap-explorer.js';
import { RlVectorLab } from './rl-vector-lab.js';
import { RlWarmupRace } from './rl-warmup-race.js';

const ELEMENTS = [
  { tag: RlVectorLab.tag, element: RlVectorLab },
  { tag: RlPrecisionLab.tag, element: RlPrecisionLab },
  { tag: RlGemmaTrap.tag, element: RlGemmaTrap },
  { tag: RlSoftcapExplorer.tag, element: RlSoftcapExplorer },
  { tag: RlGradientFlow.tag, element: RlGradientFlow },
  { tag: RlQkNormLab.tag, element: RlQkNormLab },
  { tag: RlInitScaling.tag, element: RlInitScaling },
  { tag: RlResidualGrowth.tag, element: RlResidualGrowth },
  { tag: RlPlacementLab.tag, element: RlPlacementLab },
  { tag: RlWarmupRace.tag, element: RlWarmupRace },
];

for (const { tag, element } of ELEMENTS) {
  if (!customElements.get(tag)) customElements.define(tag, element);
}

/** The tags this file registers, in the chapter's order (embed.html lists them). */
export const WIDGET_TAGS = ELEMENTS.map(({ tag }) => tag);
/** The element classes, in the same order (the README's attribute reference reads their state tables). */
export const WIDGET_ELEMENTS = ELEMENTS.map(({ element }) => element);
