// The median of the benches' repeated measurements: the upper middle value of an even count, never an average,
// so that every figure printed is one that was measured.
export const median = (values) => values.slice().sort((a, b) => a - b)[values.length >> 1];
