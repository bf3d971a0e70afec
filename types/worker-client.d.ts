// Types of the lab worker client (web/lib/worker-client.js, built to dist/lib/worker-client.js): any lab call run
// in a module Web Worker. The method names are web/lib/worker-methods.js's METHODS (tests/js/types.test.mjs checks
// them against WorkerMethods below); arguments and results are those of the lab's own functions
// (./residual-lab.d.ts), except the objects that stay in the worker, which come back as proxies.
import type { Checkpoint, Decoder, Experiments, Kernels, Progress, ResidualLab, WarmupResult, WarmupRun } from './residual-lab.js';

type Fn = (...args: never[]) => unknown;

/** The functions the worker runs, by the name `call` takes ('experiments.warmup' is lab.experiments.warmup). */
export type WorkerMethods =
  { [K in keyof Kernels]: Kernels[K] }
  & Pick<ResidualLab, 'describe' | 'createDecoder' | 'liveDecoders' | 'wasmHeapBytes' | 'memoryBudget' | 'inspectConfig' | 'openCheckpoint' | 'fetchCheckpoint' | 'storedCheckpoints' | 'deleteStoredCheckpoint'>
  & { [K in keyof Experiments as `experiments.${K}`]: Experiments[K] };

type Async<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;

/** A decoder that lives in the worker: its plain fields, and its methods, async. */
export type DecoderProxy = Pick<Decoder, 'config' | 'numParams'>
  & { [K in 'forward' | 'backward' | 'logitLens' | 'params' | 'grads' | 'paramLayout' | 'setParams' | 'trainStep' | 'resetTraining']: Async<Decoder[K]> }
  & { dispose(): Promise<void> };
/** A checkpoint that lives in the worker: its plain fields, and its methods, async. */
export type CheckpointProxy = Pick<Checkpoint, 'architecture' | 'modelType' | 'config' | 'tensors' | 'format' | 'tokenizer' | 'forward' | 'workers'>
  & { [K in 'run' | 'gradients' | 'normWeights' | 'tokenize' | 'tokenizerJson' | 'cost' | 'residency']: Async<Checkpoint[K]> }
  & { experiment: Checkpoint['experiment'] }
  & { dispose(): Promise<void> };
/** A warmup run that lives in the worker; `done` is brought up to date after each call. */
export type WarmupRunProxy = Pick<WarmupRun, 'options' | 'done'>
  & { advance: Async<WarmupRun['advance']>; result: Async<WarmupRun['result']> }
  & { dispose(): Promise<void> };

type Proxied<R> = R extends Decoder ? DecoderProxy : R extends WarmupRun ? WarmupRunProxy : R extends Checkpoint ? CheckpointProxy : R;
type ArgsOf<M extends keyof WorkerMethods> = WorkerMethods[M] extends Fn ? Parameters<WorkerMethods[M]> : never;
type ResultOf<M extends keyof WorkerMethods> = WorkerMethods[M] extends Fn ? Proxied<Awaited<ReturnType<WorkerMethods[M]>>> : never;

export interface CallOptions {
  /** experiments.residualGrowth and experiments.warmup relay their progress reports here (warmup's with `partial`) */
  onProgress?(progress: Progress & { partial?: WarmupResult }): boolean | void;
  /** aborting terminates the worker: the calls in flight reject with an AbortError */
  signal?: AbortSignal;
}

export interface LabWorker {
  /** Runs lab[method](...args) in the worker; errors arrive as a ResidualLabError with the worker's code. */
  call<M extends keyof WorkerMethods>(method: M, args?: ArgsOf<M>, options?: CallOptions): Promise<ResultOf<M>>;
  /** Ends the worker: calls in flight reject with an AbortError, proxies with code 'disposed'. */
  terminate(): void;
}

/** A lab worker that starts on the first call (again after terminate() or an abort). */
export function createLabWorker(): LabWorker;
/** A module worker running `url`, from a same-origin Blob when `url` is on another origin than the page. */
export function createWorkerFor(url: URL): Worker;
