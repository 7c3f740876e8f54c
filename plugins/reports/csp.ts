/**
 * The report's Content-Security-Policy, in its `<meta>` (html.ts) and on its download (index.ts, which sends it
 * without loading the renderer). What the document itself allows: its inline styles and inline images, nothing
 * else (no script at all).
 */
export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
