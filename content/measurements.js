// Numbers the chapter measured, which every language's texts quote (content/<lang>/strings/).

// The residual stream of Qwen2.5-0.5B-Instruct: its length at the embedding and after the last layer, the same two
// points <rl-residual-growth>'s growth compares (the 76.1 after layer 22 is a peak, not the top).
export const QWEN_EMBEDDING = 0.47;
export const QWEN_TOP = 58.1;
