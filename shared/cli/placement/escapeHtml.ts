// Owns escaping for the HTML report: every value a sender could have shaped becomes inert text.

export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
