// <rl-checkpoint-probe>'s settings (its rows of the page address and attributes) and what follows from them and the
// model open alone: the default prompt and the note beside it, the position read from its field, and a source's name
// as the page shows it.
import { TOY_NAMES, toyOf, toyWindow } from '../shared/toys.js';
import { defaultIds } from './compute.js';
import { EXPERIMENT_NAMES } from './experiments-view.js';

const MAX_PROMPT = 2000;
export const LAST = -1; // the position row's value for "the last position"
export const MAX_POSITION = 4095;

export const STATE = [
  { name: 'toy', type: 'choice', choices: TOY_NAMES, default: TOY_NAMES[0] },
  // '': the default prompt of the model open, which follows the model: a toy's probe window (toyWindow), the
  // measured prompt of a recognised model (seed.js: its numbers are then comparable at once), the page language's
  // chapter prompt (strings.chapterPrompt) for other files with tokenizer.json, the first ids (defaultIds) for
  // files without. Any other text is the reader's and stays when the model changes; typing the
  // default back makes it '' again.
  { name: 'prompt', type: 'text', default: '', maxLength: MAX_PROMPT },
  { name: 'position', type: 'integer', min: LAST, max: MAX_POSITION, default: LAST },
  // one of the chapter's claims run on the model open (experiments-view.js); 'none': the figures only
  { name: 'experiment', type: 'choice', choices: EXPERIMENT_NAMES, default: 'none' },
];

/**
 * The default prompt of a model ({ source: a toy's name or the reader's files, hasTokenizer, vocabSize, seed }) and
 * what the note under the field says of it, in the widget's strings `s`: { text, note }.
 */
export function defaultPrompt({ source, hasTokenizer, vocabSize, seed }, s) {
  const toy = typeof source === 'string';
  const ids = !toy && !hasTokenizer && defaultIds(vocabSize);
  const measured = !toy && !ids && seed;
  return {
    text: toy ? toyWindow(toyOf(source)) : ids || (measured ? seed.prompt : s.chapterPrompt),
    note: toy
      ? s.toyPromptNote(s.chapterPrompt)
      : ids
        ? s.idsNote(ids)
        : measured
          ? s.seedPromptNote(seed.model, seed.prompt)
          : '',
  };
}

/** The name of a source (a toy's name or the reader's files) as the page shows it. */
export const sourceName = (source, s) =>
  typeof source === 'string' ? (s.toyNames[source] ?? source) : source.map((f) => f.name).join(', ');
