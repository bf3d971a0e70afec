// Every text of the lab in English, by what shows it: the widgets by their tag, the shared
// messages (common), a decoder widget's run state (run), the page around the chapter (page), embed.html (embed),
// the words the chapter uses around widgets (chapter).
import blockDiagram from './block-diagram.js';
import chapter from './chapter.js';
import common from './common.js';
import embed from './embed.js';
import exercises from './exercises.js';
import page from './page.js';
import checkpointProbe from './rl-checkpoint-probe.js';
import configInspector from './rl-config-inspector.js';
import forwardReader from './rl-forward-reader.js';
import gemmaTrap from './rl-gemma-trap.js';
import gradientFlow from './rl-gradient-flow.js';
import initScaling from './rl-init-scaling.js';
import modelTable from './rl-model-table.js';
import placementLab from './rl-placement-lab.js';
import precisionLab from './rl-precision-lab.js';
import qkNormLab from './rl-qk-norm-lab.js';
import residualGrowth from './rl-residual-growth.js';
import selfCheck from './rl-self-check.js';
import softcapExplorer from './rl-softcap-explorer.js';
import vectorLab from './rl-vector-lab.js';
import warmupRace from './rl-warmup-race.js';
import run from './run.js';

export default {
  'block-diagram': blockDiagram,
  chapter,
  common,
  embed,
  exercises,
  page,
  'rl-checkpoint-probe': checkpointProbe,
  'rl-config-inspector': configInspector,
  'rl-forward-reader': forwardReader,
  'rl-gemma-trap': gemmaTrap,
  'rl-gradient-flow': gradientFlow,
  'rl-init-scaling': initScaling,
  'rl-model-table': modelTable,
  'rl-placement-lab': placementLab,
  'rl-precision-lab': precisionLab,
  'rl-qk-norm-lab': qkNormLab,
  'rl-residual-growth': residualGrowth,
  'rl-self-check': selfCheck,
  'rl-softcap-explorer': softcapExplorer,
  'rl-vector-lab': vectorLab,
  'rl-warmup-race': warmupRace,
  run,
};
