// node's built-in modules for the code paths that run only in node (reading files by path). The specifier is a
// variable, so bundlers that build for browsers leave the import alone instead of failing to resolve it.
export const importNodeModule = (specifier) => import(specifier);
