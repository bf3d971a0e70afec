// Text of <rl-checkpoint-probe> in English.
import { formatFixed, formatTrimmed } from '../../../web/components/shared/format.js';
import { QWEN_SEED } from '../../measurements.js';

// Each norm by its weight slot (web/lib/checkpoint/claims.js NORM_INPUTS, and the final norm), as the experiment
// "eps beside the mean square" names it in its answer and its table.
const normNames = {
  attnNormBefore: 'the attention’s input norm',
  attnNormAfter: 'the norm on the attention’s output',
  mlpNormBefore: 'the MLP’s input norm',
  mlpNormAfter: 'the norm on the MLP’s output',
  qNorm: 'QK-Norm (q)',
  kNorm: 'QK-Norm (k)',
  finalNorm: 'the final norm',
};

export default {
  title: 'Inside a trained model: the residual stream, layer by layer',
  hint: 'A model that has learned, not one made up for the figure: by default one of the lab’s own toys, small decoders trained on the project’s small English corpus and saved as a Hugging Face checkpoint, or any checkpoint whose files you give (nothing leaves your computer). It is run in a background worker; the figure shows the stream’s length after every layer at one position, what each sublayer adds there, the norms’ weights, and what each layer’s stream would predict (a logit lens).',
  sectionLink: 'Read the section',
  toy: 'Trained toy',
  // the select's short names; toyNames, the full ones, say what is showing
  toyLabels: {
    'toy-llama': 'toy Llama (Pre-Norm)',
    'toy-olmo2': 'toy OLMo 2 (output norms)',
  },
  toyNames: {
    'toy-llama': 'toy Llama (Pre-Norm, 4 layers, 0.2 M parameters)',
    'toy-olmo2': 'toy OLMo 2 (norms on the sublayer outputs, q/k norm, 4 layers)',
  },
  files: 'Or your checkpoint’s files',
  filesHint:
    'Pick config.json, model.safetensors (or the index and every shard) and tokenizer.json together: files, not a folder (the Hugging Face cache keeps them as links, which folder uploads drop).',
  dropHere: 'or drop the files here',
  fetchTitle: 'Or fetch a model from the Hugging Face Hub',
  fetchHint:
    'Downloads the model’s config.json, tokenizer.json and weights into this browser’s storage, checks every file’s SHA-256, and opens them here. Nothing starts until you click; the page only downloads. A cancelled or broken download continues where it stopped when you fetch again.',
  fetchHost: 'From',
  fetchCustomHost: 'another address…',
  fetchEndpointLabel: 'Host address (a Hugging Face mirror)',
  fetchChapter: (repo, gb) => `Fetch the chapter’s model, ${repo} (${gb} GB)`,
  fetchRepoLabel: 'Or a model id (organisation/name)',
  fetchGgufLabel: 'and, for a GGUF repo, the .gguf file to fetch (optional)',
  fetchRepo: 'Fetch',
  fetchProgressLabel: 'Download progress',
  fetchAsking: (repo, host) => `Asking ${host} for ${repo}…`,
  fetchProgress: (done, total, rate, seconds) =>
    `${done} of ${total} MB${rate ? `, ${rate} MB/s, about ${seconds} s left` : ''}.`,
  fetchDone: (repo, commit, mb, seconds) => `${repo} (commit ${commit}, ${mb} MB) fetched and checked in ${seconds} s.`,
  fetchStored: (repo, commit) => `${repo} (commit ${commit}) opened from this browser’s storage, with no download.`,
  fetchFromFile:
    'Fetching a model needs the lab served over the web: a page opened from a file on disk has no storage for a model and cannot download from the Hub. Open the model’s files you downloaded above, or serve the lab (npm start in a clone of its repository, or npx residual-lab where its package is installed) to fetch one.',
  fetchToken: 'Access token (gated models only)',
  fetchTokenHint:
    'For a gated model such as Llama: accept its terms on its Hub page, then paste a read token from huggingface.co/settings/tokens. It stays in this page’s memory (never in the address or storage) and goes only to the host chosen above, not to the download host it redirects to.',
  fetchErrors: {
    invalid_input: (e) =>
      ({
        not_repo_id: (r) => `“${r.value}” is not a Hugging Face model id: it reads like Qwen/Qwen2.5-0.5B-Instruct.`,
        not_revision: (r) => `“${r.value}” is not a revision: give a branch, a tag or a commit.`,
        not_host: (r) => `“${r.value}” is not a host address: it reads like https://huggingface.co.`,
      })[e.reason?.kind]?.(e.reason) ?? 'That is not usable: check the model id and the host.',
    not_found: () => 'That host has no such model (or no such file in it). Check the id’s spelling and the host.',
    gated: (e) =>
      e?.tokenSent
        ? 'The Hub refused the access token: accept the model’s terms on its Hub page with that account, or use a token with read access.'
        : 'This model needs a Hugging Face access token (it is gated or private): accept its terms on its Hub page, paste a token in the field above, or download its files yourself and open them.',
    rate_limited: () =>
      'The host is refusing requests for now (too many, HTTP 429). Fetch again later; the download continues where it stopped.',
    blocked: (e) =>
      `${
        {
          csp: (r) => `This page’s Content-Security-Policy does not let it connect to ${r.value}.`,
          csp_redirect: (r) =>
            `This page’s Content-Security-Policy does not let it connect to ${r.value}, where the host sent the download.`,
          download_refused: (r) =>
            `${r.value} answered, but the browser refused the download it was sent to (CORS or Content-Security-Policy; the console names the host), or a firewall did.`,
        }[e.reason?.kind]?.(e.reason) ?? 'The browser blocked the download.'
      } A page that embeds the lab must allow these hosts; see the lab’s docs/checkpoints.md.`,
    storage_full: (e) =>
      e.reason?.kind === 'quota'
        ? `Not enough storage: the model needs ${(e.reason.value / 1e6).toFixed(1)} MB and this browser lets the page store ${(e.reason.limit / 1e6).toFixed(1)} MB more. Delete stored models, or download the files yourself and open them above.`
        : 'This browser has no storage for a model here: download the files yourself and open them above.',
    bad_response: () => 'The host did not answer as a Hugging Face host does: is the address right?',
    http_error: () => 'The host answered with an error. Try again later, or another host.',
    offline: () =>
      'The host could not be reached: is this computer offline? Fetch again later; the download continues where it stopped.',
    hash_mismatch: () =>
      'A file arrived with bytes that do not match its SHA-256 on the Hub; it was deleted. Fetch again.',
    cancelled: () => 'Cancelled. Fetch again to continue where it stopped.',
    other: (message) => `The download failed (${message}).`,
  },
  storedTitle: 'Models stored in this browser',
  storedNone: 'None yet.',
  storedModel: (repo, revision, commit, mb, date) => `${repo} (${revision}, commit ${commit}), ${mb} MB, ${date}`,
  storedOpen: 'Open',
  storedDelete: 'Delete',
  sourceToy: (name) => `Showing: ${name}.`,
  sourceFiles: (names) => `Showing your files: ${names}.`,
  chartsStillShow: (name) => `The dimmed charts below are still those of the last model that ran: ${name}.`,
  prompt: 'Prompt',
  promptHint: 'Read by the model’s own tokenizer. Without tokenizer.json, type token ids: 3, 17, 5.',
  // the chapter's example prompt (#residual-stream), the default for a model of the reader's with tokenizer.json
  chapterPrompt: 'How do I apply for annual leave?',
  seedPromptNote: (model, prompt) =>
    `These files have the shape of ${model}, which the chapter measured on “${prompt}”: that is the default prompt here, so the comparison below reads the same text. Type your own to read another.`,
  toyPromptNote: (chapterPrompt) =>
    `This toy reads only the few characters of the project’s English corpus it was trained on (lower-case letters, digits, space and a little punctuation), one character per token, so it cannot read the chapter’s prompt “${chapterPrompt}”; by default it reads the start of the text it was tested on. To read the chapter’s prompt, open your own model’s files above (Qwen2.5-0.5B-Instruct, for one).`,
  vocabularyPromptNote: (chapterPrompt, count, toyText) =>
    `This tokenizer knows only ${count} characters, one token each, and cannot read the chapter’s prompt “${chapterPrompt}”, so by default the model reads ${toyText ? 'the start of the text the lab’s toys were tested on, which is written in those characters' : 'its own characters, in the order of its vocabulary'}. Type any text made of them to read another.`,
  idsNote: (ids) =>
    `These files have no tokenizer.json, so the prompt is token ids, and the default is the vocabulary’s first ids, ${ids}, which spell nothing in particular. Type the ids of a text of yours, or add tokenizer.json to the files to type text.`,
  beyondContext: (tokens, context) =>
    `This prompt is ${tokens} tokens long, more than the ${context} positions the model was made for (max_position_embeddings): from position ${context} on it reads what it never saw in training.`,
  unknownCharacters: (characters) =>
    `This model’s vocabulary has no token for ${characters.map((ch) => `“${ch}”`).join(', ')}: its tokenizer would drop them without a word. Remove them, or open a model that reads them. The last result stays on screen.`,
  emptyPrompt:
    'The prompt is empty: type a text for the model to read (without tokenizer.json, token ids such as 3, 17, 5). The last result stays on screen.',
  longPrompt: (tokens, limit) =>
    `This prompt is ${tokens} tokens long; the lab runs at most ${limit}. Shorten it. The last result stays on screen.`,
  position: 'Position',
  positionHint: 'A token position from 0; empty: the last one.',
  positionBeyond: (position, tokens) =>
    `The prompt has ${tokens} token${tokens === 1 ? '' : 's'}, at positions 0 to ${tokens - 1}: there is no position ${position}. Give a smaller one, or leave the field empty for the last.`,
  reading: 'Reading the files',
  readProgress: (done, total) =>
    total
      ? `Reading the files: ${(done / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB…`
      : `Reading the files: ${(done / 1e6).toFixed(1)} MB…`,
  opening: 'Opening the checkpoint in a background worker…',
  running: 'Running the model in a background worker…',
  // model, read: sizes as text (0.4 MB, 0.99 GB)
  runCost: ({ model, read, flops, estimatedSeconds }, workers) =>
    `${workers > 1 ? `Split over ${workers} threads. ` : ''}The weights take ${model} on disk; this run reads ${read} of them and computes ${formatFixed(flops / 1e9, 1)} GFLOP, an estimated ${estimatedSeconds < 1 ? 'second' : `${Math.ceil(estimatedSeconds)} s`}.`,
  // what a run has done (runLayer, or runHead after the last layer), and the bytes read of those it reads
  runLayer: (layer, layers) => `Layer ${layer} of ${layers} done`,
  runHead: 'The output layer done',
  runProgressInMemory: (step) => `${step}: the weights are in memory, nothing is read.`,
  // read, total: sizes as text
  runProgress: (step, read, total) => `${step}: ${read} of ${total} read.`,
  // kept, budget: sizes as text (0.8 MB, 1.07 GB)
  residency: ({ mode, kept, budget }) =>
    mode === 'resident'
      ? `The weights fit the ${budget} budget and stay in memory (${kept} held): the next run reads no weights.`
      : `The weights are larger than the ${budget} budget for keeping them: every run reads them from the files again.`,
  cancel: 'Cancel',
  cancelled: 'Cancelled: the last finished result stays on screen.',
  took: (ms, workers = 1) =>
    `Computed in ${ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`}${workers > 1 ? `, split over ${workers} threads` : ''}.`,
  openFailed: (message) => `These files could not be opened (${message}). The last result stays on screen.`,
  runFailed: (message) => `The model could not be run on this input (${message}). The last result stays on screen.`,
  streamTitle: 'Length of the residual stream |h| at the chosen position (0 = the embedding, i = after layer i − 1)',
  streamLabel: 'Line chart: the residual stream’s length at the chosen position, from the embedding to the last layer',
  streamAt: '|h|',
  stateAxis: 'stream state',
  incrementTitle: 'What each sublayer adds there, |Δ|:',
  incrementLabel:
    'Bar chart: the length of what the attention and the MLP sublayer of each layer add to the stream at the chosen position',
  attention: 'attention',
  mlp: 'MLP',
  zeroTitle: 'Position 0, drawn apart',
  zeroWhy:
    'The first position attends only to itself. In large trained models its stream is often far longer than the others’ (attention sinks, massive activations), enough to flatten every other curve on a shared axis, so it has a chart of its own.',
  // said only while a toy is drawn
  zeroToys:
    'The toys are too small to show that: their position 0 ends within a fifth of the last position’s length, shorter in the Llama-style toy, longer in the OLMo 2-style one (the readout below gives both).',
  zeroLabel: 'Line chart: the residual stream’s length at position 0, from the embedding to the last layer',
  streamZero: '|h| at position 0',
  positionIs: (p, n, token) => `Position ${p} of 0 .. ${n - 1}, token “${token}”.`,
  streamFromTo: (bottom, top) =>
    `The stream’s length goes from ${bottom} at the embedding to ${top} after the last layer.`,
  finalNorm: (before, after) =>
    `The final norm turns that ${before} into ${after}: the output head reads the normalized direction, scaled by the final norm’s weights.`,
  zeroVersus: (zero, here) => `At position 0 the last layer’s stream is ${zero} long, against ${here} here.`,
  weightsTitle: 'The norms’ weights',
  tensor: 'tensor',
  mean: 'mean',
  std: 'std',
  min: 'min',
  max: 'max',
  onePlus: (name) => `${name} (as applied: 1 + w)`,
  storedOnePlus: (name) => `${name} (the GGUF file holds 1 + w already: these are the multipliers)`,
  lensTitle: 'Logit lens at the chosen position',
  lensHint:
    'Each stream state read through the final norm (with its own root mean square) and the output head, as if the model stopped there: the top tokens and their probabilities. The last row is the model’s own prediction.',
  state: 'state',
  rank: (r) => `top ${r}`,
  embedding: 'embedding',
  afterLayer: (l) => `after layer ${l}`,
  seed: {
    title: (model) => `The chapter’s measurement beside yours: ${model}`,
    recognised: (model) =>
      `These files have the shape of ${model} (its config.json: the same family, widths, layers, heads and vocabulary), the model the chapter measured, so its numbers are set beside yours. Weights of another model of that shape (the base model, Qwen2-0.5B, a fine-tune) give other numbers.`,
    conditions: (prompt, last, precision) =>
      `The chapter’s measurement, the course’s own (the lab does not re-measure it; your files can): the prompt “${prompt}”, its last position (“${last}”), ${precision} on a CPU. No chat template, as we infer from that last position.`,
    yoursAre: (prompt, position, token, dtypes) =>
      `Yours: the prompt “${prompt}”, position ${position} (“${token}”), weights stored as ${dtypes}, computed in FP32 by the lab’s kernels (WebAssembly).`,
    notComparable: (prompt, position) =>
      `Not comparable: ${[prompt && 'your prompt is not the one measured', position && 'your position is not the last'].filter(Boolean).join(' and ')}, so the two columns measure different things.`,
    needsTokenizer:
      'The measured prompt is text, and these files have no tokenizer.json to turn it into tokens: add the model’s tokenizer.json to the files to run it.',
    useSeed: 'Use the measured prompt and the last position',
    point: 'stream length |h| or increment |Δ|',
    chapter: 'chapter',
    yours: 'yours',
    most: (range) => `most in ${range}`,
    within: (k, n, range) => `${k} of ${n} in ${range}`,
    points: {
      embedding: () => '|h|, the embedding',
      afterLayer0: () => '|h| after layer 0',
      middle: ([a, b]) => `|h| the middle layers climb to (the highest after layers ${a}–${b})`,
      peak: (l) => `|h| after layer ${l}`,
      last: (l) => `|h| after the last layer (${l})`,
      lastFfn: (l) => `|Δ| of layer ${l}’s FFN (the last)`,
      increments: () => '|Δ| of every other sublayer',
    },
  },
  // The experiments (checkpoint-probe/experiments-view.js): each one's name, the chapter's claim it tests, and the
  // measured answer in a sentence
  experimentTitle: 'The chapter’s claims, measured on this model',
  experiment: 'Experiment',
  experimentChart: 'The chosen experiment, measured on the model open',
  experimentRunning: 'Running the experiment in the background worker…',
  experimentRan: (model, time) => `Ran on ${model}, finished at ${time}: the answer above is this run’s.`,
  experimentProgress: (percent) => `Experiment: ${percent}% done.`,
  cannotRun: (why) => `The model open cannot run this one: ${why}.`,
  experiments: {
    none: { name: 'None (the figures above only)', claim: '', answer: () => '' },
    noFinalNorm: {
      name: 'No final norm',
      claim:
        'The final norm is not optional: the stream has only been added to, so its scale must be pulled back before the output layer.',
      answer: (r, t) =>
        `At position ${r.position} the final norm divides the stream (length ${formatFixed(r.streamNorm, 2)}) by ${formatFixed(r.scale, 3)}. Without that division, its gain kept, every logit is ${formatFixed(r.scale, 3)} times as large before any soft-cap, so the order stays (top: ${t(r.real.ids[0])}); the entropy is ${formatFixed(r.raw.entropy, 3)} nats against ${formatFixed(r.real.entropy, 3)}, KL ${formatFixed(r.kl, 3)} nats. Leaving out the gain too, the whole norm, the top token ${r.noGain.ids[0] === r.real.ids[0] ? `stays ${t(r.real.ids[0])}` : `is ${t(r.noGain.ids[0])}`}, KL ${formatFixed(r.noGain.kl, 3)} nats: what the gain changes, not the scale.`,
    },
    dropLayers: {
      name: 'Drop one layer',
      claim:
        'Sun et al. (2025): in large Pre-Norm models many deep layers are close to the identity and can be removed with little effect.',
      answer: (r) => {
        const kept = r.layers.filter((l) => l.topSurvives).length;
        const least = r.layers.reduce((a, b) => (b.kl < a.kl ? b : a));
        return `At position ${r.position}, the top token survives dropping ${kept} of the ${r.layers.length} layers one at a time; dropping layer ${least.layer} costs least (KL ${formatFixed(least.kl, 4)} nats).`;
      },
    },
    wrongConvention: {
      name: 'The wrong weight convention',
      claim:
        'Reading Gemma’s norm weights as w instead of 1 + w (or the other way round) makes the model print garbage.',
      answer: (r, t) =>
        `At position ${r.position}, read as ${r.wrong.normOffset ? '1 + w' : 'w'} instead of ${r.right.normOffset ? '1 + w' : 'w'}, the top token ${r.wrong.ids[0] === r.right.ids[0] ? `stays ${t(r.right.ids[0])}` : `is ${t(r.wrong.ids[0])} (right: ${t(r.right.ids[0])})`} and the entropy ${formatFixed(r.wrong.entropy, 3)} nats (right: ${formatFixed(r.right.entropy, 3)}).`,
    },
    increments: {
      name: 'Increments against the stream',
      claim:
        'Pre-Norm’s trunk keeps growing while each sublayer writes about the same amount: the deeper, the smaller one increment relative to the stream.',
      answer: (r) => {
        const first = r.layers[0],
          last = r.layers.at(-1);
        return `At position ${r.position}: |Δ| / |h| is ${formatFixed(first.attn, 3)} (attention) and ${formatFixed(first.mlp, 3)} (MLP) in layer 0, ${formatFixed(last.attn, 3)} and ${formatFixed(last.mlp, 3)} in layer ${last.layer}.`;
      },
    },
    epsMargin: {
      name: 'eps beside the mean square',
      claim: 'ε only prevents division by zero: even the short embedding’s mean square is far larger than it.',
      answer: (r) =>
        `The smallest mean square at any norm’s input is ${formatTrimmed(r.smallest.minMeanSquare, 3)} (${normNames[r.smallest.slot]}${r.smallest.layer == null ? '' : `, layer ${r.smallest.layer}`}), ${formatTrimmed(r.smallest.ratio, 3)} times ε = ${formatTrimmed(r.eps)}.`,
    },
    attentionScores: {
      name: 'Attention scores against their bound',
      claim:
        'With QK-Norm each score is bounded by the product of the two norms’ gains times √head_dim (11.3 at g = 1 for 128-dimensional heads).',
      answer: (r) => {
        const max = Math.max(...r.layers.flatMap((l) => l.maxPerHead));
        return r.layers[0]?.bound == null
          ? `This model has no q/k norm, so nothing bounds its scores: the largest |score| is ${formatFixed(max, 2)}.`
          : `The largest |score| is ${formatFixed(max, 2)}; the q/k norms’ gains bound layer 0 at ${formatFixed(r.layers[0].bound, 2)}, and no score exceeds its layer’s bound.`;
      },
    },
    softcaps: {
      name: 'Soft-caps at work',
      claim: 'Gemma 2’s soft-caps press attention scores under 50 and final logits under 30.',
      unsupported:
        'The model open cannot run this one: it sets no soft-cap (attn_logit_softcapping, final_logit_softcapping). Gemma 2 does.',
      answer: (r) => {
        const bent = (r.attention ?? []).reduce((n, l) => n + l.bent, 0);
        return `${bent} attention scores and ${r.final?.bent ?? 0} final logits lie where the cap bends them (|x| > cap / 2).`;
      },
    },
    streamTop: {
      name: 'Where the length lives',
      claim: `In ${QWEN_SEED.model} the stream grows from ${QWEN_SEED.embedding} at the embedding (the chapter’s measurement): whether a few dimensions carry such growth shows in its largest coordinates.`,
      answer: (r) => {
        const last = r.states.at(-1);
        return `At position ${r.position}, after the last layer, the ${r.k} largest of its coordinates hold ${formatFixed(100 * last.share, 1)}% of the squared length ${formatFixed(last.norm, 2)}²; a random direction’s ${r.k} largest hold ${formatFixed(100 * r.random.share, 1)}% on average.`;
      },
    },
    bf16Norm: {
      name: 'BF16 arithmetic in the norm',
      claim: 'The norm computes in FP32 because squares summed in BF16 lose precision.',
      answer: (r) => {
        const worst = r.positions.reduce((a, b) => (Math.abs(b.meanSquareError) > Math.abs(a.meanSquareError) ? b : a));
        return `Summed in BF16, the final norm’s mean square is off by up to ${formatFixed(100 * Math.abs(worst.meanSquareError), 2)}% (position ${worst.position}); its output by ${formatFixed(100 * Math.max(...r.positions.map((p) => p.outputError)), 2)}% of its largest value.`;
      },
    },
  },
  // what each experiment chart's axes show (bar-chart.js axes): x, the bars' groups; y, what a bar measures
  axes: {
    noFinalNorm: { x: 'how the last stream is read', y: 'entropy of the next-token distribution (nats)' },
    dropLayers: { x: 'layer dropped', y: 'KL divergence from the full model’s next-token distribution (nats)' },
    wrongConvention: {
      x: 'convention the norm weights are read with',
      y: 'entropy of the next-token distribution (nats)',
    },
    increments: { x: 'layer', y: '|Δ| / |h|: what the sublayer adds, over the length of the stream it is added to' },
    epsMargin: {
      x: 'the norm, in the table’s order (L0 attn in: layer 0’s attention input norm; MLP out: the norm on the MLP’s output; q, k: QK-Norm)',
      y: 'log₁₀ of the table’s ratio to ε (3 means the mean square is 1,000 times ε)',
    },
    attentionScores: { x: 'layer', y: 'largest |score|: q·k times the model’s scale, before any cap' },
    softcaps: { x: 'layer (final: the output logits)', y: 'largest |value|, before and after the soft-cap' },
    streamTop: { x: 'stream state (0: the embedding, i: after layer i − 1)', y: 'share of |h|² (1 = all of it)' },
    bf16Norm: { x: 'token position', y: 'error of the BF16 computation, relative to FP32 (0.01 = 1%)' },
  },
  withNorm: 'with the final norm',
  withoutNorm: 'without its division (gain kept)',
  withoutGain: 'without the whole norm',
  rightReading: 'the model’s convention',
  wrongReading: 'the other one',
  readingColumn: 'reading',
  entropy: 'entropy (nats)',
  topTokens: 'top tokens (probability)',
  layer: 'layer',
  kl: 'KL(full ‖ dropped), nats',
  topStays: 'top token stays',
  cosine: 'cos(input, output)',
  yes: 'yes',
  no: 'no',
  streamLength: '|h|',
  outputGains: 'output norms’ mean gain',
  finalShort: 'final',
  log10Ratio: 'log₁₀(mean square / ε)',
  norm: 'norm',
  normNames,
  // a bar of the eps experiment: the norm's layer and its short name (normShort), or the final norm (finalShort)
  normBar: (layer, short) => `L${layer} ${short}`,
  normShort: {
    attnNormBefore: 'attn in',
    attnNormAfter: 'attn out',
    mlpNormBefore: 'MLP in',
    mlpNormAfter: 'MLP out',
    qNorm: 'q',
    kNorm: 'k',
  },
  minMeanSquare: 'smallest mean square',
  ratioToEps: 'ratio to ε',
  maxScore: 'largest |score|',
  bound: 'bound',
  maxPerHead: 'largest |score| per head',
  maxBefore: 'largest before the cap',
  maxAfter: 'largest after',
  bent: 'bent / all',
  topShare: (k) => `share of |h|² in the ${k} largest coordinates`,
  coordinates: 'coordinate: value',
  positionShort: 'position',
  meanSquare: 'mean square (FP32)',
  meanSquareBf16: 'mean square (BF16)',
  meanSquareError: 'relative error of the mean square',
  outputError: 'output error / largest output',
  // the experiment list's link to the gradient section (experiments-view.js)
  gradientsElsewhere:
    'The gradients of these models, with and without their skips, are measured in the section on why deep networks need residuals.',
  gradientsLink: 'Measure them',
};
