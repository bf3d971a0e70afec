// The sections of a WebAssembly binary (https://webassembly.github.io/spec/core/binary/modules.html): a header of
// 8 bytes, then sections, each an id byte, its size (unsigned LEB128) and its contents; a custom section (id 0)
// starts with its name (a LEB128 length and UTF-8 bytes).

function readLeb128(bytes, at) {
  let value = 0,
    shift = 0,
    byte;
  do {
    byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return { value, next: at };
}

/** [{ id, name (custom sections only), start, end }]: where each section lies in `bytes`, its header included. */
export function wasmSections(bytes) {
  const sections = [];
  for (let at = 8; at < bytes.length;) {
    const start = at;
    const id = bytes[at];
    const size = readLeb128(bytes, at + 1);
    const end = size.next + size.value;
    let name;
    if (id === 0) {
      const length = readLeb128(bytes, size.next);
      name = new TextDecoder().decode(bytes.subarray(length.next, length.next + length.value));
    }
    sections.push({ id, name, start, end });
    at = end;
  }
  return sections;
}

/** `bytes` without the custom sections named in `names` (the "name" section only serves debuggers and profilers). */
export function withoutCustomSections(bytes, names = ['name']) {
  const kept = wasmSections(bytes).filter((s) => !(s.id === 0 && names.includes(s.name)));
  return Buffer.concat([bytes.subarray(0, 8), ...kept.map((s) => bytes.subarray(s.start, s.end))]);
}
