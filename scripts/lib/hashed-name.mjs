// A content-hashed file name, as the site build writes them (scripts/lib/site-assets.mjs, esbuild's [hash] too):
// <name>-<8 characters of base32>.<ext>. scripts/serve.mjs serves such names as immutable.
export const HASHED_NAME = /-[A-Z2-7]{8}\.[a-z0-9]+$/;
