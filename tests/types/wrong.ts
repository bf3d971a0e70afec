// A misspelt option, which tests/js/types.test.mjs expects tsc to refuse (the declarations are strict enough).
import { load } from 'residual-lab';

const lab = await load();
lab.createDecoder({ nLayer: 2 });
