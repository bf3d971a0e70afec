// Text of <rl-gemma-trap> in English.
export default {
  title: 'The Gemma (1 + w) trap',
  hint: 'One stored weight vector, read with the convention it was trained with and with the other one, as a careless port would.',
  sectionLink: 'Read the section',
  llamaConvention: 'Times w (Llama, Gemma 4, most models):',
  gemmaConvention: 'Times (1 + w) (Gemma 1, 2 and 3, Qwen3-Next’s main RMSNorms):',
  checkpoint: 'Where the stored weights come from',
  gemma: 'a (1 + w) checkpoint, such as Gemma 2 or 3',
  llama: 'a × w checkpoint, such as Llama or Gemma 4',
  x: 'Input vector x',
  w: 'Stored norm weights w',
  wHint:
    'As the checkpoint file holds them. Under (1 + w) the file stores the multiplier minus 1: a freshly initialized norm holds w = 0, a multiplier of 1. That is all the convention fixes; where training takes the values, only the trained checkpoint shows.',
  right: 'as trained',
  wrong: 'misread by the port',
  rightGemma: '(1 + w) code: x̂ · (1 + w)',
  wrongGemma: 'Llama code: x̂ · w',
  rightLlama: 'Llama code: x̂ · w',
  wrongLlama: '(1 + w) code: x̂ · (1 + w)',
  reading: (how, code) => `${how}: ${code}`,
  normalized: 'x̂ = x / rms(x)',
  chartLabel: 'Bar chart of the output as trained and as misread',
  lengthRatio: 'length of the misread output / the right one',
  cosine: 'cosine between them (1 = same direction)',
  flipped: 'signs flipped',
  flippedOf: (n, d) => `${n} of ${d}`,
  // The verdict follows the cosine: at least `high` (0.99) the direction is kept, below `low` (0.9) it is lost.
  verdictSame: (cosine, ratio, high) =>
    `The misread output points the same way as the trained one (cosine ${cosine}, at least ${high}) but is ${ratio} as long: for this input the mistake changes the scale, not the direction. Every norm in the model makes it, layer after layer, so every sublayer sees inputs of a size it was not trained on.`,
  verdictTurned: (cosine, ratio, low, high) =>
    `The misread output has turned away from the trained one (cosine ${cosine}, between ${low} and ${high}) and is ${ratio} as long. Every norm in the model makes this mistake, layer after layer, and the errors compound.`,
  verdictFar: (cosine, ratio, low) =>
    `The misread output points elsewhere (cosine ${cosine}, below ${low}) and is ${ratio} as long. Every norm in the model makes this mistake, layer after layer: the model produces gibberish.`,
  verdictTrainedZero:
    'As trained, this norm outputs all zeros (every multiplier is 0), while the misread one passes a signal on: there is no length ratio or angle between them, and the port feeds the next layer something the model never saw.',
  verdictMisreadZero:
    'The misread norm outputs all zeros (every multiplier it uses is 0) where the trained one passes a signal on: the port silences this layer entirely.',
  verdictBothZero: 'Both readings output all zeros here: there is nothing to compare.',
};
