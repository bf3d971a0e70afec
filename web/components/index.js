// Registers every Residual Lab element. A page needs only
//   <script type="module" src=".../components/index.js"></script>
// and the tags; each element finds the lab (../lib/residual-lab.js) and its CSS (../styles/) relative to
// this folder, so the widgets work in any page that serves the built dist/ tree.
// Which widgets there are is registry.js; the imports below are its modules, one each (static, so that the
// page fetches them with this file and the offline build bundles them; tests/js/registry.test.mjs checks).
import { WIDGETS } from './registry.js';
import { RlCheckpointProbe } from './rl-checkpoint-probe.js';
import { RlConfigInspector } from './rl-config-inspector.js';
import { RlForwardReader } from './rl-forward-reader.js';
import { RlGemmaTrap } from './rl-gemma-trap.js';
import { RlGradientFlow } from './rl-gradient-flow.js';
import { RlInitScaling } from './rl-init-scaling.js';
import { RlModelTable } from './rl-model-table.js';
import { RlPlacementLab } from './rl-placement-lab.js';
import { RlPrecisionLab } from './rl-precision-lab.js';
import { RlQkNormLab } from './rl-qk-norm-lab.js';
import { RlResidualGrowth } from './rl-residual-growth.js';
import { RlSelfCheck } from './rl-self-check.js';
import { RlSoftcapExplorer } from './rl-softcap-explorer.js';
import { RlVectorLab } from './rl-vector-lab.js';
import { RlWarmupRace } from './rl-warmup-race.js';

const CLASSES = new Map(
  [
    RlCheckpointProbe,
    RlConfigInspector,
    RlForwardReader,
    RlGemmaTrap,
    RlGradientFlow,
    RlInitScaling,
    RlModelTable,
    RlPlacementLab,
    RlPrecisionLab,
    RlQkNormLab,
    RlResidualGrowth,
    RlSelfCheck,
    RlSoftcapExplorer,
    RlVectorLab,
    RlWarmupRace,
  ].map((element) => [element.tag, element]),
);

/** The element classes, in the registry's order (the attribute reference reads their state tables). */
export const WIDGET_ELEMENTS = WIDGETS.map(({ tag }) => {
  const element = CLASSES.get(tag);
  if (!element) throw new Error(`components/index.js does not import the module of <${tag}> (registry.js lists it)`);
  return element;
});

for (const element of WIDGET_ELEMENTS) {
  if (!customElements.get(element.tag)) customElements.define(element.tag, element);
}

/** The tags this file registers, in the registry's order (embed.html lists them). */
export { WIDGET_TAGS } from './registry.js';
