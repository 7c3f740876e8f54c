/**
 * The console's icon, served at `/favicon.ico` (browsers ask for that path on their own) as a small SVG: a
 * check mark on the console's accent colour. No script, no external reference.
 */
export const FAVICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
  + '<rect width="32" height="32" rx="7" fill="#1d4ed8"/>'
  + '<path d="M9 16.5l4.5 4.5L23 11" fill="none" stroke="#fff" stroke-width="3.5" stroke-linecap="round" stroke-linejoin="round"/>'
  + '</svg>';
