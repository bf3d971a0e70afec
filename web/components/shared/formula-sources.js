// TeX of the formulas the widgets show. scripts/pages.mjs typesets them at build time with KaTeX (MathML
// output: no style attributes, so the strict CSP holds) into components/shared/formulas.js, which
// formula.js loads; the widgets never ship KaTeX itself.
export const FORMULA_SOURCES = {
  rmsFull: 'y = \\frac{x}{\\sqrt{\\operatorname{mean}(x^2) + \\varepsilon}} \\odot g',
  rmsSquares: 'x_i^2',
  rmsMeanSquare: '\\operatorname{mean}(x^2) = \\tfrac{1}{d}\\textstyle\\sum_i x_i^2',
  rmsRms: '\\mathrm{rms} = \\sqrt{\\operatorname{mean}(x^2) + \\varepsilon}',
  rmsNormalized: '\\hat{x} = x \\,/\\, \\mathrm{rms}',
  rmsOutput: 'y = \\hat{x} \\odot g',
  lnFull: 'y = \\frac{x - \\mu}{\\sqrt{\\sigma^2 + \\varepsilon}} \\odot \\gamma + \\beta',
  lnMean: '\\mu = \\tfrac{1}{d}\\textstyle\\sum_i x_i',
  lnCentered: 'x - \\mu',
  lnVariance: '\\sigma^2 = \\tfrac{1}{d}\\textstyle\\sum_i (x_i - \\mu)^2',
  lnStd: '\\sigma_\\varepsilon = \\sqrt{\\sigma^2 + \\varepsilon}',
  lnNormalized: '\\hat{x} = (x - \\mu) \\,/\\, \\sigma_\\varepsilon',
  lnOutput: 'y = \\hat{x} \\odot \\gamma + \\beta',
  dytFull: 'y = \\gamma \\odot \\tanh(\\alpha x) + \\beta',
  dytScaled: '\\alpha x',
  dytTanh: '\\tanh(\\alpha x)',
  dytOutput: 'y = \\gamma \\odot \\tanh(\\alpha x) + \\beta',
  llamaConvention: 'y = \\hat{x} \\odot w',
  gemmaConvention: 'y = \\hat{x} \\odot (1 + w)',
  softcap: '\\operatorname{softcap}(x) = c \\, \\tanh(x / c)',
  softcapGradient: '\\frac{d}{dx}\\operatorname{softcap}(x) = 1 - \\tanh^2(x / c)',
  bf16Sum: 's \\leftarrow \\operatorname{bf16}(s + \\operatorname{bf16}(x_i^2))',
};
