// One number, one reading: what the vector parser (wasm/src/api/parse_vector.hpp, through lab.parseVector) accepts
// as a number, the single-number parser (web/components/shared/parse-number.js, used by every number field and the
// self-check) accepts with the same value, and what one refuses the other refuses.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { parseNumber } from '../../web/components/shared/parse-number.js';
import { judge } from '../../web/components/self-check/judge.js';

let lab;
before(async () => {
  lab = await load();
});

const ACCEPTED = [
  '0.0008',
  '０．０００８',
  '8e-4',
  '８ｅ－４',
  '８Ｅ－４',
  '−0.5',
  '－０．５',
  '＋2',
  '+2',
  '-3',
  '.5',
  '．５',
  '2.',
  '２．',
  '1e5',
  '1E+5',
  ' 42 ',
  '\u00A042\u3000',
  '\u202F7',
  '\t3\n',
  '0',
  '-0',
  '123456789',
];
const REFUSED = [
  'abc',
  '1e',
  'e5',
  '.',
  '-',
  '+-1',
  '1..2',
  '1.2.3',
  '0x10',
  '1_000',
  'NaN',
  'Infinity',
  '-inf',
  '½',
  '1/2',
  '1e5.5',
  '١٢',
  '\u20091',
  '1\u0000',
  '＃1',
  '1 2',
  '1,5',
  '—1',
];

test('a number the vector parser reads, the number parser reads to the same value', () => {
  for (const text of ACCEPTED) {
    const vector = lab.parseVector(text);
    assert.equal(vector.length, 1, `${JSON.stringify(text)} is one number to the vector parser`);
    assert.equal(Math.fround(parseNumber(text)), vector[0], JSON.stringify(text));
  }
});

test('text the vector parser refuses as a number, the number parser refuses', () => {
  for (const text of REFUSED) {
    let vectorRefused = false;
    try {
      lab.parseVector(text);
    } catch {
      vectorRefused = true;
    }
    assert.ok(
      vectorRefused || lab.parseVector(text).length !== 1,
      `${JSON.stringify(text)}: the vector parser does not read one number`,
    );
    assert.throws(() => parseNumber(text), { code: 'not_a_number' }, JSON.stringify(text));
  }
});

test('the self-check accepts an answer typed with a Chinese IME', () => {
  const exercise = { kind: 'number', tolerance: 1e-5, answer: () => 0.0008 };
  assert.equal(judge(exercise, '０．０００８', lab).verdict, 'right');
  assert.equal(judge(exercise, '８ｅ－４', lab).verdict, 'right');
  assert.equal(judge(exercise, '０．００９', lab).verdict, 'wrong');
});
