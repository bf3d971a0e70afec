// The one error type the API throws. `code` is stable and machine-readable (the page translates by it);
// `message` is plain English; `position` (0-based character index) is set for text the reader typed.
export class ResidualLabError extends Error {
  constructor(message, { code = 'invalid_input', position } = {}) {
    super(message);
    this.name = 'ResidualLabError';
    this.code = code;
    if (position !== undefined) this.position = position;
  }
}
