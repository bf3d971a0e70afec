// What <rl-forward-reader> decides, kept free of the DOM (tests/js/forward-reader.test.mjs runs it in node).
// The right answer is never stored: it is the `placement` of the snippet's decoder config as the engine's
// option table resolves it, and the explanation quotes the engine's own formula for that placement (the
// `meaning` of the decoder's placement row in lab.describe()).
import { findRow, resolveOptions } from '../../lib/options.js';

export const SUBLAYERS = ['attn', 'mlp'];
const NORM_STEPS = ['norm-in', 'norm-out', 'norm-after'];
// The steps whose presence and order decide a layout: where the norms sit relative to the residual add, and
// whether the skip path is scaled.
const DECISIVE_STEPS = new Set([...NORM_STEPS, 'add', 'skip-scale']);

/** The placement row of the decoder config (its choices are the reader's answers). */
export function placementRow(tables) {
  return findRow(tables, 'decoder.placement');
}

/** The snippet's full decoder config, checked and completed by the engine's option table (throws if bad). */
export function snippetConfig(snippet, tables) {
  return resolveOptions(tables.decoder, snippet.config, { where: 'config', prefix: `${snippet.id}: ` });
}

/** The answer the reader must give: the placement of the snippet's config. */
export function expectedPlacement(snippet, tables) {
  return snippetConfig(snippet, tables).placement;
}

/** { correct, expected } for the reader's choice. */
export function checkPlacement(snippet, choice, tables) {
  const expected = expectedPlacement(snippet, tables);
  return { correct: choice === expected, expected };
}

/**
 * The engine's formula of each placement, read from the placement row's meaning
 * ("where the norms sit: post Norm(h + F(h)); pre h + F(Norm(h)); ..."): { post: 'Norm(h + F(h))', ... }.
 * A choice the meaning does not describe maps to null.
 */
export function placementFormulas(tables) {
  const row = placementRow(tables);
  const described = row.meaning
    .slice(row.meaning.indexOf(':') + 1)
    .split(';')
    .map((part) => part.trim());
  return Object.fromEntries(
    row.choices.map((choice) => {
      const entry = described.find((part) => part.startsWith(`${choice} `));
      return [choice, entry ? entry.slice(choice.length + 1).trim() : null];
    }),
  );
}

/** The steps of one sublayer's path, in the order the snippet's lines perform them (each once). */
export function sublayerSteps(snippet, sub) {
  const steps = [];
  for (const line of snippet.lines) {
    if (line.sub !== sub) continue;
    for (const step of line.steps ?? []) if (!steps.includes(step)) steps.push(step);
  }
  return steps;
}

/** The module name the diagram shows for a step of a sublayer (the line's name labels its norm, else its sublayer). */
export function stepName(snippet, sub, step) {
  for (const line of snippet.lines) {
    if (line.sub !== sub || !line.name || !(line.steps ?? []).includes(step)) continue;
    const labelled = line.steps.find((s) => NORM_STEPS.includes(s)) ?? 'sublayer';
    if (labelled === step) return line.name;
  }
  return null;
}

/** Indices of the lines that decide the layout: the norms, the residual adds and a scaled skip. */
export function decisiveLines(snippet) {
  return snippet.lines.flatMap((line, i) => ((line.steps ?? []).some((step) => DECISIVE_STEPS.has(step)) ? [i] : []));
}

/** The diagram element keys a line touches ('attn:norm-in', ...). */
export function lineKeys(line) {
  return line.sub ? (line.steps ?? []).map((step) => `${line.sub}:${step}`) : [];
}
