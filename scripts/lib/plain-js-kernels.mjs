// Plain-JavaScript RMSNorm and LayerNorm (forward and backward), written the obvious way over Float32Arrays:
// the baseline `npm run bench` compares the WASM builds against. Float64 accumulation, as JS numbers are.
export function rmsNormForward(y, x, g, eps) {
  const d = x.length;
  let sumSquares = 0;
  for (let i = 0; i < d; i++) sumSquares += x[i] * x[i];
  const rstd = 1 / Math.sqrt(sumSquares / d + eps);
  for (let i = 0; i < d; i++) y[i] = x[i] * rstd * g[i];
  return rstd;
}

// dx_i = rstd * (g_i dy_i - x_i rstd^2 * mean(g dy x)),  dg_i = dy_i x_i rstd
export function rmsNormBackward(dx, dg, dy, x, g, rstd) {
  const d = x.length;
  let dot = 0;
  for (let i = 0; i < d; i++) dot += g[i] * dy[i] * x[i];
  const c = (rstd * rstd * dot) / d;
  for (let i = 0; i < d; i++) {
    dx[i] += rstd * (g[i] * dy[i] - x[i] * c);
    dg[i] += dy[i] * x[i] * rstd;
  }
}

export function layerNormForward(y, x, gamma, beta, eps) {
  const d = x.length;
  let sum = 0;
  for (let i = 0; i < d; i++) sum += x[i];
  const mean = sum / d;
  let sumSquares = 0;
  for (let i = 0; i < d; i++) {
    const c = x[i] - mean;
    sumSquares += c * c;
  }
  const rstd = 1 / Math.sqrt(sumSquares / d + eps);
  for (let i = 0; i < d; i++) y[i] = (x[i] - mean) * rstd * gamma[i] + beta[i];
  return { mean, rstd };
}

// With n = (x - mean) rstd and t = gamma dy: dx = rstd (t - mean(t) - n mean(t n)), dgamma = dy n, dbeta = dy
export function layerNormBackward(dx, dgamma, dbeta, dy, x, gamma, mean, rstd) {
  const d = x.length;
  let meanT = 0;
  let meanTN = 0;
  for (let i = 0; i < d; i++) {
    const t = gamma[i] * dy[i];
    meanT += t;
    meanTN += t * (x[i] - mean) * rstd;
  }
  meanT /= d;
  meanTN /= d;
  for (let i = 0; i < d; i++) {
    const n = (x[i] - mean) * rstd;
    dx[i] += rstd * (gamma[i] * dy[i] - meanT - n * meanTN);
    dgamma[i] += dy[i] * n;
    dbeta[i] += dy[i];
  }
}
