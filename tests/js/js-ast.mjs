// JavaScript modules read as syntax trees, for the tests that measure or edit code: acorn, through the parser
// Prettier ships (a dependency already), whose nodes carry `start` and `end` offsets into the source.
import { parsers } from 'prettier/plugins/acorn';

/** The syntax tree of an ES module's source. */
export const parseModule = (source) => parsers.acorn.parse(source, {});

/** Calls visit(node, ancestors) for `root` and every node below it, parents first (ancestors: outermost first). */
export function eachNode(root, visit, ancestors = []) {
  visit(root, ancestors);
  const below = [...ancestors, root];
  for (const [key, value] of Object.entries(root)) {
    if (key === 'comments') continue;
    for (const child of [value].flat()) if (child && typeof child.type === 'string') eachNode(child, visit, below);
  }
}

/** The name of an object's property (an identifier or a string key). */
export const keyName = (property) => property.key?.name ?? property.key?.value;
