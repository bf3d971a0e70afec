// The texts of the lab in Chinese that belong to no one widget, by what shows them: the shared messages (common),
// a decoder widget's run state (run), the page around the chapter (page), embed.html (embed), the chapter's
// exercises (exercises), the words the chapter uses around widgets (chapter) and the block diagram. Each widget's
// own texts are <tag>.js beside this file, found through the widget registry (web/widget-strings.js): no line here.
import blockDiagram from './block-diagram.js';
import chapter from './chapter.js';
import common from './common.js';
import embed from './embed.js';
import exercises from './exercises.js';
import page from './page.js';
import run from './run.js';

export default {
  'block-diagram': blockDiagram,
  chapter,
  common,
  embed,
  exercises,
  page,
  run,
};
