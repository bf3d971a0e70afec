// Types of Residual Lab's public JS API (web/lib/residual-lab.js, built to dist/lib/residual-lab.js).
// Written by hand, beside the code it describes; the option objects' types are generated from the option tables
// (./options.d.ts). tests/types/example.ts uses every part under `tsc --strict`, and tests/js/types.test.mjs checks
// the names here against the objects the built lab really has. docs/api.md explains what the calls do.
import type {
  DecoderConfig, ExperimentOptions, GradientDecayOptions, InitGradientsOptions, InitScalingOptions, KernelOptions,
  QkLogitGrowthOptions, ResidualGrowthOptions, TrainOptions, WarmupOptions,
} from './options.js';

export type * from './options.js';

// ---- Loading -------------------------------------------------------------------------------------------------

/** The WASM builds: relaxed SIMD (SIMD with the fused multiply-add), SIMD, scalar. */
export type Flavour = 'relaxed' | 'simd' | 'scalar';

export interface LoadOptions {
  /** 'auto' (default) picks the first build the engine validates: relaxed, simd, scalar. */
  flavour?: Flavour | 'auto';
  /** A module from compileWasm(flavour), e.g. posted from the page to a worker; needs its flavour named. */
  module?: WebAssembly.Module;
}

/**
 * Loads the lab once per flavour (cached); rejects when the .wasm cannot be fetched (offline, http_error) or
 * compiled (unavailable); throws invalid_options for a flavour or module it cannot take.
 */
export function load(options?: LoadOptions): Promise<ResidualLab>;
/** The lab's WebAssembly.Module, fetched and compiled once per page (or worker, or node process). */
export function compileWasm(flavour?: Flavour | 'auto'): Promise<WebAssembly.Module>;
/** The build a flavour option names ('auto': the first the engine validates); invalid_options on another name. */
export function chooseFlavour(flavour?: Flavour | 'auto'): Flavour;
/** The builds, in the order 'auto' prefers them. */
export const FLAVOURS: readonly Flavour[];
/** Whether this engine validates WebAssembly SIMD. */
export function simdSupported(): boolean;
/** Whether this engine validates relaxed SIMD's f32x4.relaxed_madd (Chromium 114+, node 22+). */
export function relaxedSimdSupported(): boolean;

// ---- Errors --------------------------------------------------------------------------------------------------

/** The stable codes a ResidualLabError carries (docs/api.md#errors says when each is thrown). */
export type ErrorCode =
  | 'invalid_input' | 'invalid_options' | 'invalid_config' | 'out_of_memory' | 'disposed' | 'unavailable'
  // parseVector
  | 'empty' | 'too_long' | 'unexpected_char' | 'invalid_number' | 'not_finite' | 'out_of_range' | 'underflow'
  | 'too_many_values'
  // inspectConfig
  | 'invalid_json'
  // openCheckpoint: the files, the safetensors format, what the forward runs
  | 'missing_file' | 'missing_shard' | 'invalid_index' | 'missing_tensor' | 'shape_mismatch' | 'unsupported_dtype'
  | 'unsupported_architecture' | 'unsupported_config' | 'invalid_tokenizer' | 'no_tokenizer'
  | 'safetensors_truncated' | 'safetensors_header_too_large' | 'not_safetensors' | 'safetensors_bad_tensor'
  | 'safetensors_bad_offsets' | 'file_changed'
  // openCheckpoint: the GGUF format
  | 'invalid_gguf' | 'invalid_gguf_key' | 'truncated_header' | 'header_too_long' | 'invalid_tensor_count'
  | 'misaligned_tensor' | 'offset_out_of_file' | 'truncated_tensor'
  // fetchCheckpoint: the host's answers, storage, the bytes' hash
  | 'not_found' | 'gated' | 'blocked' | 'storage_full' | 'offline' | 'hash_mismatch' | 'cancelled' | 'bad_response'
  | 'http_error' | 'rate_limited'
  // the lab worker (worker-client.js)
  | 'unknown_method' | 'invalid_request' | 'worker_failed';

/** The one error type the API throws: `message` in plain English, `code` stable for programs. */
export class ResidualLabError extends Error {
  constructor(message: string, options?: { code?: ErrorCode | (string & {}); position?: number });
  name: string;
  code: ErrorCode | (string & {});
  /** 0-based character index of the problem, for text the reader typed (parseVector, inspectConfig's JSON). */
  position?: number;
  /** inspectConfig's invalid_config: the config field at fault (e.g. 'text_config.hidden_size'). */
  field?: string;
  /** fetchCheckpoint's gated: whether an access token was sent (and refused) */
  tokenSent?: boolean;
  /**
   * What is wrong, for a page to say in its own language: inspectConfig's invalid_config (with `field`) and
   * invalid_json, the norm kernels' refusals of an input, fetchCheckpoint's blocked, storage_full and invalid_input
   * (docs/api.md#errors lists the kinds).
   */
  reason?: { kind: string; value?: number | string; limit?: number };
  /** rmsNormSteps / layerNormSteps refusing only the division (x all zeros or constant): the steps before it. */
  partial?:
    | { squares: Float32Array; meanSquare: number; rms: number }
    | { mean: number; centered: Float32Array; variance: number; std: number };
}

// ---- Vectors and kernels -------------------------------------------------------------------------------------

/** A vector: converted to Float32Array (BigInt arrays, DataView, strings throw invalid_input); at most 1,048,576 values. */
export type VectorInput =
  | Float32Array | Float64Array | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array
  | Uint32Array | readonly number[];

export interface RmsNormSteps { squares: Float32Array; meanSquare: number; rms: number; normalized: Float32Array; output: Float32Array }
export interface LayerNormSteps { mean: number; centered: Float32Array; variance: number; std: number; normalized: Float32Array; output: Float32Array }
export interface DynamicTanhSteps { /** alpha * x */ scaled: Float32Array; tanh: Float32Array; output: Float32Array }

export interface Kernels {
  /** x / rms(x) * (weightOffset + g); g null means ones. Writes into `out` (x's length) when given and returns it. */
  rmsNorm(x: VectorInput, g?: VectorInput | null, options?: KernelOptions['rmsNorm'], out?: Float32Array): Float32Array;
  layerNorm(x: VectorInput, gamma?: VectorInput | null, beta?: VectorInput | null, options?: KernelOptions['layerNorm'], out?: Float32Array): Float32Array;
  rmsNormBackward(x: VectorInput, g: VectorInput | null, dy: VectorInput, options?: KernelOptions['rmsNormBackward']): { dx: Float32Array; dg: Float32Array };
  layerNormBackward(x: VectorInput, gamma: VectorInput | null, dy: VectorInput, options?: KernelOptions['layerNormBackward']): { dx: Float32Array; dgamma: Float32Array; dbeta: Float32Array };
  rmsNormSteps(x: VectorInput, g?: VectorInput | null, options?: KernelOptions['rmsNormSteps']): RmsNormSteps;
  layerNormSteps(x: VectorInput, gamma?: VectorInput | null, beta?: VectorInput | null, options?: KernelOptions['layerNormSteps']): LayerNormSteps;
  /** DyT: gamma * tanh(alpha * x) + beta. */
  dynamicTanh(x: VectorInput, gamma?: VectorInput | null, beta?: VectorInput | null, options?: KernelOptions['dynamicTanh'], out?: Float32Array): Float32Array;
  dynamicTanhBackward(x: VectorInput, gamma: VectorInput | null, dy: VectorInput, options?: KernelOptions['dynamicTanhBackward']): { dx: Float32Array; dalpha: number; dgamma: Float32Array; dbeta: Float32Array };
  dynamicTanhSteps(x: VectorInput, gamma?: VectorInput | null, beta?: VectorInput | null, options?: KernelOptions['dynamicTanhSteps']): DynamicTanhSteps;
  /** cap * tanh(x / cap). */
  softcap(x: VectorInput, cap: number, out?: Float32Array): Float32Array;
  softcapBackward(x: VectorInput, cap: number, dy: VectorInput): { dx: Float32Array };
  /** Numerically stable (the maximum is subtracted first). */
  softmax(x: VectorInput, out?: Float32Array): Float32Array;
  /** "[2, -1, 3, 0]", "2 -1 3 0", full-width commas, "−1", "1e-3"; errors carry the `position`. */
  parseVector(text: string): Float32Array;
}

// ---- Option tables (lab.describe()) --------------------------------------------------------------------------

export interface OptionRow {
  readonly name: string;
  readonly type: 'integer' | 'number' | 'boolean' | 'choice' | 'list' | 'object';
  readonly meaning: string;
  readonly default: unknown;
  readonly nullable: boolean;
  /** integer and number rows (and lists of them) */
  readonly min?: number; readonly max?: number; readonly minExclusive?: boolean; readonly float32?: boolean;
  /** choice rows (and lists of choices) */
  readonly choices?: readonly string[];
  /** list rows */
  readonly item?: 'integer' | 'number' | 'boolean' | 'choice'; readonly minLength?: number; readonly maxLength?: number;
  /** object rows */
  readonly fields?: readonly OptionRow[];
}
export type OptionTable = readonly OptionRow[];
export interface OptionTables {
  readonly decoder: OptionTable;
  readonly train: OptionTable;
  readonly experiments: { readonly [K in keyof ExperimentOptions]: OptionTable };
  readonly kernels: { readonly [K in keyof KernelOptions]: OptionTable };
}

/** An options object as the lab resolved it: every key present, with its default where none was given. */
export type Resolved<T> = {
  readonly [K in keyof T]-?: NonNullable<T[K]> extends readonly unknown[] ? Exclude<T[K], undefined>
    : NonNullable<T[K]> extends object ? Resolved<NonNullable<T[K]>> | Extract<T[K], null>
    : Exclude<T[K], undefined>;
};

// ---- The lab's decoder ---------------------------------------------------------------------------------------

/** Token ids: an Int32Array or whole numbers, at most contextLength of them. */
export type Tokens = Int32Array | readonly number[];

export interface ForwardStats {
  nLayers: number; nHeads: number; seqLen: number;
  /** per layer and sublayer (and position): the residual stream's L2 norm */
  streamNorm: Float32Array; streamNormMean: Float32Array;
  incrementNorm: Float32Array; incrementNormMean: Float32Array; incrementRatio: Float32Array;
  /** per layer and head */
  maxAttnLogit: Float32Array; attnEntropy: Float32Array;
}
export interface LogitLens {
  k: number;
  /** the stream points read: 0 the embeddings, 2l+1 after layer l's attention, 2l+2 after its MLP (2 nLayers + 1) */
  points: number;
  seqLen: number;
  /** [points][seqLen][k], row-major */
  topTokens: Int32Array;
  topProbs: Float32Array;
}
export interface ForwardResult {
  /** mean cross-entropy; null without targets; NaN or Infinity when status says so */
  loss: number | null;
  /** [seqLen][vocabSize], row-major */
  logits: Float32Array;
  stats: ForwardStats;
  status: 'ok' | 'nonfinite_logits' | 'nonfinite_loss';
  /** with { logitLens: k } */
  logitLens?: LogitLens;
}
export interface BackwardResult {
  totalGradNorm: number;
  streamGradNorm: Float32Array;
  streamGradNormPerPosition: Float32Array;
  /** one per tensor of paramLayout() */
  tensorGradNorms: Float32Array;
  /** per layer, by the tensor's name within it ('attn.q.weight') */
  layers: Array<Record<string, number>>;
  /** the tensors outside the layers ('embed.weight', 'final_norm.weight', ...) */
  global: Record<string, number>;
}
export type TrainStatus = 'ok' | 'nonfinite_loss' | 'nonfinite_gradient' | 'loss_exploded';
export interface TrainStepResult {
  step: number; loss: number; gradNorm: number; lr: number; status: TrainStatus;
  /** false when a non-finite loss or gradient skipped the update */
  updated: boolean;
  /** some step so far was divergent */
  diverged: boolean;
}
export interface ParamTensor {
  /** PyTorch's name, 'layers.0.attn.q.weight' */
  name: string; offset: number; size: number; shape: number[];
  /** -1 outside the layers */
  layer: number;
}
export interface Decoder {
  readonly config: Resolved<DecoderConfig>;
  readonly numParams: number;
  forward(tokens: Tokens, targets?: Tokens | null, options?: { logitLens?: number }): ForwardResult;
  backward(): BackwardResult;
  logitLens(k?: number): LogitLens;
  params(): Float32Array;
  /** the last backward's gradients, before any clipping */
  grads(): Float32Array;
  paramLayout(): ParamTensor[];
  setParams(values: Float32Array): void;
  /** one AdamW step on the shipped corpus; options are fixed by the first call until resetTraining() */
  trainStep(options?: TrainOptions): TrainStepResult;
  resetTraining(): void;
  dispose(): void;
}
export interface MemoryBudget { budgetBytes: number; usedBytes: number }

// ---- The chapter's experiments -------------------------------------------------------------------------------

export interface Progress { stepsDone: number; stepsTotal: number }
/** Returning false stops the run with what it has (cancelled: true); a throw stops it and reaches the caller. */
export type OnProgress<P extends Progress = Progress> = (progress: P) => boolean | void;

export interface GradientDecayResult { gradNorms: Float64Array }
export interface InitGradientsResult {
  placements: string[];
  depths: Int32Array;
  layers: number;
  perLayer: Record<string, { attn: Float64Array; mlpUp: Float64Array; mlpDown: Float64Array }>;
  lastLayerMlpGradNorm: Record<string, Float64Array>;
  loss: Record<string, number>;
}
export interface ResidualGrowthResult {
  streamNorm: Float64Array; incrementNorm: Float64Array; incrementRatio: Float64Array; trainLoss: Float64Array;
  loss: number;
  cancelled?: true;
}
export interface WarmupRunCurves {
  placement: string; warmup: boolean;
  loss: Float64Array; gradNorm: Float64Array; lr: Float64Array;
  status: TrainStatus;
  /** -1 when no step diverged */
  firstDivergentStep: number;
  finalSmoothedLoss: number; evalLoss: number; predictionSimilarity: number;
}
export interface WarmupResult {
  stepsDone: number; stepsTotal: number; unigramEntropy: number;
  runs: WarmupRunCurves[];
  cancelled?: true;
}
export interface WarmupProgress extends Progress { partial: WarmupResult }
export interface QkLogitGrowthResult {
  gains: Float64Array;
  bound: number;
  maxLogitPlain: Float64Array; maxLogitQkNorm: Float64Array; layer0MaxLogitPlain: Float64Array;
  entropyPlain: Float64Array; entropyQkNorm: Float64Array;
}
export interface InitScalingResult {
  depths: Int32Array;
  finalVariancePlain: Float64Array; finalVarianceScaled: Float64Array;
  profilePlain: Float64Array; profileScaled: Float64Array;
}
/** experiments.warmup, steppable. */
export interface WarmupRun {
  readonly options: Resolved<WarmupOptions>;
  /** advances every run n steps (default 10); returns the steps done */
  advance(n?: number): number;
  readonly done: boolean;
  result(): WarmupResult;
  dispose(): void;
}

export interface Experiments {
  gradientDecay(options?: GradientDecayOptions): GradientDecayResult;
  initGradients(options?: InitGradientsOptions): InitGradientsResult;
  residualGrowth(options?: ResidualGrowthOptions, callbacks?: { onProgress?: OnProgress }): ResidualGrowthResult;
  warmup(options?: WarmupOptions, callbacks?: { onProgress?: OnProgress<WarmupProgress>; chunk?: number }): WarmupResult;
  createWarmupRun(options?: WarmupOptions): WarmupRun;
  qkLogitGrowth(options?: QkLogitGrowthOptions): QkLogitGrowthResult;
  initScaling(options?: InitScalingOptions): InitScalingResult;
}

// ---- Reading a Hugging Face config.json ----------------------------------------------------------------------

export interface ConfigField {
  name: string;
  /** where it was read ('text_config.rms_norm_eps') */
  path: string;
  value: number | boolean | null;
  group: string;
  source: 'config' | 'default';
}
export interface NormCount { name: string; slot: string; count: number; size: number; tensors: number; params: number }
export interface ConfigNote { code: string; message: string; field?: string }
export interface ConfigInspection {
  architecture: string | null;
  modelType: string | null;
  textConfig: string | null;
  fields: ConfigField[];
  /** the architecture's block as a config of the lab's decoder; null for an unknown architecture */
  layout: Pick<DecoderConfig, 'placement' | 'norm' | 'qkNorm'> | null;
  norms: NormCount[];
  normParams: number | null;
  normCount: number | null;
  totalParams: number | null;
  normShare: number | null;
  notes: ConfigNote[];
  /** the Transformers classes the architecture's table cites */
  source: string | null;
}

// ---- Checkpoints -------------------------------------------------------------------------------------------
// lab.openCheckpoint (web/lib/checkpoint/; docs/checkpoints.md): a Hugging Face checkpoint the reader has.

/**
 * One file: a File / Blob (read by byte ranges where it lies), bytes, or text for the JSON files; in node a
 * weights file may also be its path (a string or a file: URL), read with a FileHandle.
 */
export type CheckpointFile = Blob | ArrayBuffer | ArrayBufferView | string | URL;
/**
 * config.json, model.safetensors (or model.safetensors.index.json and its shards), optionally tokenizer.json; or a
 * .gguf (or a split set of them) alone; node: also 'ollama:NAME[:TAG]', a model in ollama's store.
 */
export type CheckpointFiles =
  | Record<string, CheckpointFile>
  | Map<string, CheckpointFile>
  | Iterable<File>
  | `ollama:${string}`;

export interface CheckpointTensor {
  /** the Hugging Face name (a GGUF's tensors too) */
  name: string;
  /** F32, F16, BF16; a GGUF's also Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K */
  dtype: string;
  shape: number[];
  file: string;
  /** a GGUF's own name of the tensor (blk.0.attn_q.weight) */
  ggufName?: string;
}

export interface CheckpointRunOptions {
  /** 'last' (default): the last position's logits; 'all': T x V */
  logits?: 'last' | 'all';
  /** also the streams themselves: hiddenStates[0 .. L] and finalHidden, each T x d */
  hiddenStates?: boolean;
  /** a logit lens at one position (default the last), its top k tokens (default 10) per state */
  lens?: { k?: number; position?: number };
  /** called after every layer and after the output head */
  onProgress?: (progress: CheckpointProgress) => void;
  /** cancels the run between layers (an AbortError); through the lab worker, it terminates the worker */
  signal?: AbortSignal;
  /** bytes of weights a run may hold in JS memory at once (default 1 GiB); a model whose one layer needs more is refused */
  memoryLimit?: number;
  /** named changes to the one forward (docs/checkpoints.md, "Interventions and observations") */
  intervene?: CheckpointInterventions;
  /** what the run also reports, in `collected` */
  collect?: CheckpointObservation[];
  /**
   * runs that differ from this one at some layers or at the final norm, in the same pass over the weights: layers
   * to skip too, or { skipLayers, normOffset, noFinalNorm } (each left out is the run's); their logits in
   * `variantLogits`, with a lens each variant's in `variantLens`
   */
  variants?: (number[] | CheckpointVariant)[];
  /** the position whose row each variant reads through the final norm and head (default the last) */
  variantPosition?: number;
}

export interface CheckpointVariant {
  /** layers skipped beside the run's own skipLayers */
  skipLayers?: number[];
  /** the variant's norms (every layer's, q/k, final) multiply by normOffset + w */
  normOffset?: 0 | 1;
  /** what the variant leaves of the final norm, as intervene.noFinalNorm */
  noFinalNorm?: boolean | 'division';
}

export interface CheckpointInterventions {
  /** layers whose two increments are not added: the stream passes them unchanged */
  skipLayers?: number[];
  /** start at layer `layer` from this stream (T x d, a previous run's hiddenStates[layer]); not with a lens */
  from?: { layer: number; stream: Float32Array };
  /** true: the output head reads the raw last stream, without the final norm; 'division': times its gain only */
  noFinalNorm?: boolean | 'division';
  /** every RMSNorm multiplies by (normOffset + w): 0 reads weights as w, 1 as Gemma's 1 + w */
  normOffset?: 0 | 1;
}

export type CheckpointObservation = 'attnScores' | 'normInputs' | 'residMid' | 'finalSoftcap' | 'finalNormBf16';

/** A run's observations; states and layers a run did not compute are null. */
export interface CheckpointCollected {
  /** per layer, 4 floats per query head h: [4h] max |score| after the scale and before any cap, [4h + 1] after the cap, [4h + 2] scores with |s| > cap / 2, [4h + 3] scores */
  attnScores?: (Float32Array | null)[];
  /** per layer, 4 x T: mean(h^2) at the inputs of N1 .. N4 (attention before, attention after, MLP before, MLP after; 0 where the layout has none) */
  normInputs?: (Float32Array | null)[];
  /** with normInputs: mean(h^2) at the final norm's input, per position */
  finalNormInput?: Float32Array;
  /** per layer, per position: the L2 norm of the stream between the sublayers (hook_resid_mid) */
  residMid?: (Float32Array | null)[];
  /** the final soft-cap over the logits returned (cap 0: none) */
  finalSoftcap?: { cap: number; maxBefore: number; maxAfter: number; bent: number; count: number };
  /** the final norm with every step rounded to bfloat16: its output (T x d) and mean square per position */
  finalNormBf16?: { hidden: Float32Array; meanSquare: Float32Array };
}

/** What the forward does with an opened model. */
export interface CheckpointForward {
  layers: number;
  d: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocab: number;
  eps: number;
  placement: 'pre' | 'sandwich' | 'olmo2';
  normOffset: 0 | 1;
  /** 1 where the file stores Gemma's 1 + w itself (a GGUF; normOffset is then 0), else 0 */
  storedNormOffset: 0 | 1;
  qkNorm: 'none' | 'per_head' | 'whole';
  attnScale: number;
  /** 0: none */
  attnSoftcap: number;
  finalSoftcap: number;
}

export interface CheckpointProgress {
  stage: 'layer' | 'head';
  /** layers done */
  layer: number;
  layers: number;
  bytesRead: number;
  bytesTotal: number;
}

/** What a run of T positions costs, before it starts. */
export interface CheckpointCost {
  layers: number;
  /** every tensor the forward reads */
  modelBytes: number;
  /** what one run reads from the files: every layer, the head, T embedding rows */
  bytesRead: number;
  /** multiply-adds counted as two */
  flops: number;
  /** the largest single read held in JS memory */
  largestRead: number;
  /** the WASM heap blocks of a run */
  wasmBytes: number;
  /** at the speeds the bench measured on two cores */
  estimatedSeconds: number;
}

export interface LogitLensState {
  /** 0: the embedding as layer 0 reads it; l + 1: after layer l */
  state: number;
  ids: Int32Array;
  logits: Float32Array;
  probs: Float32Array;
}

export interface CheckpointRun {
  tokens: Int32Array;
  /** per position: [0] before layer 0, [l + 1] after layer l (L2 norm of the residual stream) */
  streamNorms: Float32Array[];
  /** per layer, per position: the norm of what the attention sublayer adds */
  attnNorms: Float32Array[];
  /** per layer, per position: the norm of what the MLP sublayer adds */
  mlpNorms: Float32Array[];
  /** per position: after the final norm, its weight applied */
  finalNorms: Float32Array;
  /** the last position's logits (V), or T x V with logits: 'all' */
  logits: Float32Array;
  hiddenStates?: Float32Array[];
  finalHidden?: Float32Array;
  lens?: { position: number; k: number; layers: LogitLensState[] };
  /** what the run read: bytes, reads, the most bytes held in JS memory at once, each share's WASM heap (this thread's first) */
  reads: { bytes: number; count: number; peakHeldBytes: number; workerHeapBytes: number[] };
  /** where this thread's time went: waiting for the files, for the split's shares, and each share's busy time (this thread's first) */
  timings: { seconds: number; readWaitSeconds: number; exchangeWaitSeconds: number; workerBusySeconds: number[] };
  /** with options.variants: each variant's logits at options.variantPosition, n x V */
  variantLogits?: Float32Array;
  /** with options.variants and options.lens: each variant's lens, as `lens` */
  variantLens?: { position: number; k: number; layers: LogitLensState[] }[];
  /** the model's mode after the run and what stays in the heaps */
  residency: CheckpointResidency;
  /** with options.collect */
  collected?: CheckpointCollected;
}

export interface NormWeightStats {
  name: string;
  /** null for the final norm */
  layer: number | null;
  slot: 'attnNormBefore' | 'attnNormAfter' | 'mlpNormBefore' | 'mlpNormAfter' | 'qNorm' | 'kNorm' | 'finalNorm';
  size: number;
  mean: number;
  std: number;
  min: number;
  max: number;
  /** for the (1 + w) convention: the statistics of the multiplier applied, 1 + w; null otherwise */
  multiplier: { mean: number; std: number; min: number; max: number } | null;
  /** 1: the file stores 1 + w (a Gemma GGUF), so the values are the multiplier */
  storedOffset: 0 | 1;
}

export interface CheckpointResidency {
  /** 'resident': the model fits the budget and what a run reads stays; 'streamed': every run reads the files */
  mode: 'resident' | 'streamed';
  budgetBytes: number;
  modelBytes: number;
  /** the weights' bytes held in the heaps now (this thread's and every split worker's) */
  keptBytes: number;
  workerKeptBytes: number[];
  /** embedding rows kept, by token */
  embeddingRows: number;
  /** every weight a run needs is held: the next run reads at most new tokens' embedding rows */
  warm: boolean;
}

export interface OpenCheckpointOptions {
  /** threads a run is split over: this one and workers - 1 lab workers (default: the cores, up to 4, for files on disk; 1 for bytes) */
  workers?: number;
  /** bytes the weights may keep in the WASM heaps between runs; 0: read every run (default: docs/checkpoints.md) */
  residencyBudget?: number;
}

export interface Checkpoint {
  readonly architecture: string;
  readonly modelType: string;
  /** config.json as lab.inspectConfig reads it */
  readonly config: ConfigInspection;
  readonly tensors: CheckpointTensor[];
  /** the weights' format */
  readonly format: 'safetensors' | 'gguf';
  readonly forward: CheckpointForward;
  /** where tokenize finds its tokenizer: tokenizer.json, a GGUF's tokenizer.ggml.* (rebuilt), or none */
  readonly tokenizer: 'tokenizer.json' | 'gguf' | null;
  /** the tokenizer.json rebuilt from a GGUF's tokenizer.ggml.* that tokenize uses; null for any other tokenizer */
  tokenizerJson(): Record<string, unknown> | null;
  /** token ids of a text (needs tokenizer.json, or a GGUF's own tokenizer) */
  tokenize(text: string): number[];
  /** every norm's weights, read from the files */
  normWeights(): Promise<NormWeightStats[]>;
  /** what a run of `tokens` positions (a count, or the ids: the embedding rows kept are not read) will read and compute */
  cost(tokens?: number | ArrayLike<number>): CheckpointCost;
  /** whether the weights stay in the WASM heaps between runs, and what they hold now */
  residency(): CheckpointResidency;
  /** how many threads a run is split over (this one computes the first share) */
  readonly workers: number;
  /** one of the chapter's claims run on this checkpoint (checkpointClaims, by name) */
  claim<N extends CheckpointClaimName>(
    name: N,
    input: string | ArrayLike<number>,
    options?: Parameters<(typeof checkpointClaims)[N]>[2],
  ): ReturnType<(typeof checkpointClaims)[N]>;
  /** token ids, or a text when tokenizer.json was given */
  run(input: string | ArrayLike<number>, options?: CheckpointRunOptions): Promise<CheckpointRun>;
  /** the loss's gradients through the model: one forward, then a backward that reads the weights again */
  gradients(input: string | ArrayLike<number>, options?: CheckpointGradientOptions): Promise<CheckpointGradients>;
  dispose(): void;
}

export interface CheckpointGradientOptions {
  /** default: the mean next-token cross-entropy over positions 0 .. T-2; else the cross-entropy at one position */
  target?: { position: number; token: number };
  /** forward passes report pass 'forward', the backward pass 'backward' (stage 'head', then 'layer' per layer done) */
  onProgress?: (progress: CheckpointProgress & { pass: 'forward' | 'backward' }) => void;
  signal?: AbortSignal;
  memoryLimit?: number;
}

export interface CheckpointGradients {
  tokens: Int32Array;
  /** natural log, after the final soft-cap */
  loss: number;
  /** L + 1 arrays of T: ||dloss/dh_i|| per position (hook_resid_pre's gradient; h_L before the final norm) */
  streamGrads: Float32Array[];
  /** L arrays of T: ||dloss/dh|| between layer l's two residual adds (hook_resid_mid's gradient) */
  midGrads: Float32Array[];
  /** per layer, each sublayer's ||J_f^T g||_F / ||g||_F over all positions (g: the gradient at its output) */
  branchGains: { attn: number; mlp: number }[];
  /** L + 1 arrays of T: the gradient's norm at h_i with every skip above it removed from the backward */
  branchOnly: Float32Array[];
  /** Frobenius norm of dloss/dW, by the checkpoint's tensor name (a tied head: one entry, both uses) */
  paramGradNorms: Record<string, number>;
  reads: { bytes: number; count: number; peakHeldBytes: number; workerHeapBytes: number[] };
}

// lab.fetchCheckpoint (web/lib/hub/hub.js; docs/checkpoints.md)
export interface FetchCheckpointOptions {
  /** default https://huggingface.co; node: else HF_ENDPOINT */
  endpoint?: string;
  /** a branch, tag or commit; default 'main' */
  revision?: string;
  onProgress?: (progress: { file: string; loaded: number; total: number }) => void;
  signal?: AbortSignal;
  /** node: the Hub cache folder; default HF_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub */
  cacheDir?: string;
  fetch?: typeof fetch;
  /**
   * a Hugging Face access token, sent to the endpoint's origin only (never to a host it redirects to); node: default
   * HF_TOKEN, else the Hub's token file (HF_TOKEN_PATH, HF_HOME/token); false: none
   */
  token?: string | false | null;
  /** a .gguf file of the repo, fetched without config.json (the first of a split set brings the rest) */
  file?: string;
}
export interface FetchedCheckpoint {
  repo: string;
  revision: string;
  commit: string;
  endpoint: string;
  bytes: number;
  /** false: opened from storage with no request */
  fetched: boolean;
  /** what openCheckpoint takes: disk-backed Files (browser), paths and Blobs (node) */
  files: Record<string, File | Blob | string>;
}
export interface StoredCheckpoint {
  repo: string;
  revision: string;
  commit: string;
  endpoint: string;
  bytes: number;
  date: string;
}

// ---- The lab -------------------------------------------------------------------------------------------------

export interface ResidualLab extends Kernels {
  readonly flavour: Flavour;
  /** every option table */
  describe(): OptionTables;
  createDecoder(config?: DecoderConfig): Decoder;
  /** reads a Hugging Face checkpoint the reader has and runs it with the lab's kernels (docs/checkpoints.md) */
  openCheckpoint(files: CheckpointFiles, options?: OpenCheckpointOptions): Promise<Checkpoint>;
  /** fetches a model from the Hugging Face Hub or a mirror into local storage, resumable and verified (docs/checkpoints.md) */
  fetchCheckpoint(repo: string, options?: FetchCheckpointOptions): Promise<FetchedCheckpoint>;
  /** the models stored in this browser (node: none) */
  storedCheckpoints(): Promise<StoredCheckpoint[]>;
  /** deletes a model stored in this browser */
  deleteStoredCheckpoint(repo: string): Promise<void>;
  /** C++ models alive: created, neither disposed nor reclaimed */
  liveDecoders(): number;
  memoryBudget(): MemoryBudget;
  /** the WASM heap's size in bytes (it only grows) */
  wasmHeapBytes(): number;
  readonly experiments: Experiments;
  /** a config.json's text, read for its norms (no WASM) */
  inspectConfig(text: string): ConfigInspection;
}

// ---- The chapter's claims on an opened checkpoint ----------------------------------------------------------
// web/lib/checkpoint/claims.js: the chapter's claims about trained models, each one run (or a few) with
// named interventions and observations. `ckpt` may be a checkpoint or a lab worker's handle of one.

export interface CheckpointClaimOptions {
  onProgress?: (progress: CheckpointProgress & { fraction?: number }) => void;
  signal?: AbortSignal;
}
/** where a claim looks: a whole number 0 .. T - 1, default the last */
type AtPosition = { position?: number };
/** how many it lists: a whole number 1 .. min(V, MAX_TOP_TOKENS) tokens, or 1 .. d coordinates; default 5 */
type TopK = { k?: number };
export type CheckpointClaimName = keyof typeof checkpointClaims.CLAIM_OPTIONS;
export interface TokenDistribution {
  /** nats */
  entropy: number;
  ids: number[];
  probs: number[];
}
type ClaimCheckpoint = Pick<Checkpoint, 'run' | 'normWeights' | 'forward'>;

export declare namespace checkpointClaims {
  /** each claim's own options beside onProgress and signal */
  const CLAIM_OPTIONS: {
    readonly noFinalNorm: readonly ('k' | 'position')[];
    readonly dropLayers: readonly 'position'[];
    readonly wrongConvention: readonly ('k' | 'position')[];
    readonly increments: readonly 'position'[];
    readonly epsMargin: readonly never[];
    readonly attentionScores: readonly never[];
    readonly softcaps: readonly never[];
    readonly streamTop: readonly ('k' | 'position')[];
    readonly bf16Norm: readonly never[];
  };
  const MAX_TOP_TOKENS: number;
  /** a layer's norms in the order of a run's normInputs blocks */
  const NORM_INPUTS: readonly Exclude<EpsRow['slot'], 'finalNorm'>[];
  const RANDOM_DIRECTIONS: number;
  /** what the k largest of d coordinates hold of a random direction's squared length (seeded) */
  function randomShares(d: number, k: number, seed?: number): { share: number; p95: number; top: number };
  function noFinalNorm(
    ckpt: ClaimCheckpoint,
    ids: ArrayLike<number>,
    options?: CheckpointClaimOptions & TopK & AtPosition,
  ): Promise<{
    position: number;
    real: TokenDistribution;
    /** the final norm's division left out, its gain kept */
    raw: TokenDistribution;
    /** the whole final norm left out, gain too */
    noGain: TokenDistribution & { kl: number };
    scale: number;
    streamNorm: number;
    kl: number;
  }>;
  function dropLayers(
    ckpt: ClaimCheckpoint,
    ids: ArrayLike<number>,
    options?: CheckpointClaimOptions & AtPosition,
  ): Promise<{
    position: number;
    top: number;
    layers: { layer: number; kl: number; topSurvives: boolean; top: number; cosine: number }[];
  }>;
  function wrongConvention(
    ckpt: ClaimCheckpoint,
    ids: ArrayLike<number>,
    options?: CheckpointClaimOptions & TopK & AtPosition,
  ): Promise<{
    position: number;
    right: TokenDistribution & { normOffset: 0 | 1; lens: CheckpointRun['lens'] };
    wrong: TokenDistribution & { normOffset: 0 | 1; lens: CheckpointRun['lens'] };
  }>;
  function increments(
    ckpt: ClaimCheckpoint,
    ids: ArrayLike<number>,
    options?: CheckpointClaimOptions & AtPosition,
  ): Promise<{
    position: number;
    layers: { layer: number; attn: number; mlp: number; stream: number; attnGain: number | null; mlpGain: number | null }[];
  }>;
  function epsMargin(
    ckpt: ClaimCheckpoint,
    ids: ArrayLike<number>,
    options?: CheckpointClaimOptions,
  ): Promise<{ eps: number; rows: EpsRow[]; smallest: EpsRow }>;
  function attentionScores(
    ckpt: ClaimCheckpoint,
    ids: ArrayLike<number>,
    options?: CheckpointClaimOptions,
  ): Promise<{ qkNorm: CheckpointForward['qkNorm']; layers: { layer: number; maxPerHead: number[]; bound: number | null }[] }>;
  function softcaps(
    ckpt: ClaimCheckpoint,
    ids: ArrayLike<number>,
    options?: CheckpointClaimOptions,
  ): Promise<{
    unsupported: string | null;
    attnCap?: number | null;
    finalCap?: number | null;
    attention?: { layer: number; maxBefore: number; maxAfter: number; bent: number; count: number }[] | null;
    final?: CheckpointCollected['finalSoftcap'] | null;
  }>;
  function streamTop(
    ckpt: ClaimCheckpoint,
    ids: ArrayLike<number>,
    options?: CheckpointClaimOptions & TopK & AtPosition,
  ): Promise<{
    position: number;
    k: number;
    states: { state: number; norm: number; share: number; coords: { index: number; value: number; share: number }[] }[];
    /** the baseline: randomShares(d, k) */
    random: { share: number; p95: number; top: number };
  }>;
  function bf16Norm(
    ckpt: ClaimCheckpoint,
    ids: ArrayLike<number>,
    options?: CheckpointClaimOptions,
  ): Promise<{
    positions: { position: number; meanSquare: number; meanSquareBf16: number; meanSquareError: number; outputError: number }[];
  }>;
  function distribution(logits: ArrayLike<number>, k?: number): TokenDistribution & { logSum: number };
  function klDivergence(p: ArrayLike<number>, q: ArrayLike<number>): number;
}
export interface EpsRow {
  layer: number | null;
  slot: 'attnNormBefore' | 'attnNormAfter' | 'mlpNormBefore' | 'mlpNormAfter' | 'qNorm' | 'kNorm' | 'finalNorm';
  minMeanSquare: number;
  position: number;
  ratio: number;
}
