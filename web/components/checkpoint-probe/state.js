// <rl-checkpoint-probe>'s settings (its rows of the page address and attributes) and what follows from them and the
// model open alone: the default prompt and the note beside it, the position read from its field, and a source's name
// as the page shows it.
import { CLAIMS } from '../../lib/checkpoint/claims.js';
import { TOYS, TOY_NAMES, toyOf, toyWindow } from '../shared/toys.js';
import { defaultIds, unknownCharacters } from './compute.js';

const MAX_PROMPT = 2000;
export const LAST = -1; // the position row's value for "the last position"
export const MAX_POSITION = 4095;

/** 'none' (the probe's own figures only), then the experiments in the library's order. */
const EXPERIMENT_NAMES = Object.freeze(['none', ...Object.keys(CLAIMS)]);

/** The position field's text for the row's value: empty for the last position. */
export const positionText = (position) => (position === LAST ? '' : String(position));

export const STATE = [
  { name: 'toy', type: 'choice', choices: TOY_NAMES, default: TOY_NAMES[0] },
  // '': the default prompt of the model open, which follows the model (defaultPrompt). Any other text is the
  // reader's and stays when the model changes; typing the default back makes it '' again.
  { name: 'prompt', type: 'text', default: '', maxLength: MAX_PROMPT },
  { name: 'position', type: 'integer', min: LAST, max: MAX_POSITION, default: LAST },
  // one of the chapter's claims run on the model open (experiments-view.js); 'none': the figures only
  { name: 'experiment', type: 'choice', choices: EXPERIMENT_NAMES, default: 'none' },
];

/**
 * The default prompt of a model ({ source: a toy's name or the reader's files, hasTokenizer, characters (the
 * character vocabulary, compute.js readTokenizer), vocabSize, seed }) and what the note under the field says of it,
 * in the widget's strings `s`: { text, note }. The first the model can read of: a toy's probe window (toyWindow)
 * for a shipped toy; the first ids (defaultIds) for files without tokenizer.json; the measured prompt of a
 * recognised model (seed.js: its numbers are then comparable at once); the page language's chapter prompt; the
 * toys' window, for a character vocabulary that lacks the chapter prompt's characters (the toys' own files, picked
 * or fetched); else that vocabulary's own characters.
 */
export function defaultPrompt({ source, hasTokenizer, characters = null, vocabSize, seed }, s) {
  if (typeof source === 'string') return { text: toyWindow(toyOf(source)), note: s.toyPromptNote(s.chapterPrompt) };
  if (!hasTokenizer) {
    const ids = defaultIds(vocabSize);
    return { text: ids, note: s.idsNote(ids) };
  }
  const reads = (text) => unknownCharacters(characters, text).length === 0;
  if (seed && reads(seed.prompt)) return { text: seed.prompt, note: s.seedPromptNote(seed.model, seed.prompt) };
  if (reads(s.chapterPrompt)) return { text: s.chapterPrompt, note: '' };
  const window = TOYS.map(toyWindow).find(reads);
  return {
    text:
      window ??
      [...characters]
        .filter((ch) => /\S/.test(ch))
        .slice(0, 64)
        .join(''),
    note: s.vocabularyPromptNote(s.chapterPrompt, characters.size, Boolean(window)),
  };
}

/** The name of a source (a toy's name or the reader's files) as the page shows it. */
export const sourceName = (source, s) =>
  typeof source === 'string' ? (s.toyNames[source] ?? source) : source.map((f) => f.name).join(', ');
