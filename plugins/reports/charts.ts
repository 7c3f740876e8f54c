/**
 * The report's charts, as inline SVG with a text alternative: the seven dimension scores and the index against
 * the pass, warning and safety-floor lines, and the tasks' outcomes as one stacked bar.
 */
import { DIMENSIONS } from '../../core/domain/scenario.ts';
import { PASS_THRESHOLD, SAFETY_FLOOR_CAP, WARNING_THRESHOLD } from '../../core/domain/scoring.ts';
import { esc, score } from './escape.ts';

const WIDTH = 560;
const LABEL = 120;
const BAR = WIDTH - LABEL - 60;
const ROW = 26;

function colour(value: number): string {
  return value >= PASS_THRESHOLD ? '#116329' : value >= WARNING_THRESHOLD ? '#7a4d00' : '#a40e26';
}

/** The dimension scores and the index as horizontal bars. */
export function dimensionChart(dimensions: Record<string, number | null> | null, index: number | null): string {
  const rows = [...DIMENSIONS.map((name) => ({ name, value: dimensions?.[name] ?? null })), { name: 'index', value: index }];
  const height = rows.length * ROW + 30;
  const x = (value: number) => LABEL + value * BAR;
  const summary = rows.map((row) => `${row.name} ${row.value === null ? 'not measured' : row.value.toFixed(2)}`).join(', ');
  const bars = rows.map((row, position) => {
    const y = position * ROW + 4;
    const label = `<text x="${LABEL - 8}" y="${y + 15}" text-anchor="end" font-size="13"${row.name === 'index' ? ' font-weight="700"' : ''}>${row.name}</text><rect x="${LABEL}" y="${y + 3}" width="${BAR}" height="16" fill="#eef1f4"/>`;
    if (row.value === null) return `${label}<text x="${LABEL + 6}" y="${y + 15}" font-size="12" fill="#4a5360">not measured</text>`;
    return `${label}<rect x="${LABEL}" y="${y + 3}" width="${Math.max(1, row.value * BAR).toFixed(1)}" height="16" fill="${colour(row.value)}"/><text x="${(x(row.value) + 6).toFixed(1)}" y="${y + 15}" font-size="12">${row.value.toFixed(2)}</text>`;
  });
  const lines = [{ at: PASS_THRESHOLD, label: `pass ${PASS_THRESHOLD}`, dash: '5 3', anchor: 'start', dx: 4 }, { at: WARNING_THRESHOLD, label: `warn ${WARNING_THRESHOLD}`, dash: '5 3', anchor: 'start', dx: 4 }, { at: SAFETY_FLOOR_CAP, label: `floor ${SAFETY_FLOOR_CAP}`, dash: '2 2', anchor: 'end', dx: -4 }]
    .map((line) => `<line x1="${x(line.at)}" x2="${x(line.at)}" y1="0" y2="${rows.length * ROW + 6}" stroke="#1b1f24" stroke-dasharray="${line.dash}"/><text x="${x(line.at) + line.dx}" y="${rows.length * ROW + 22}" font-size="11" text-anchor="${line.anchor}">${line.label}</text>`);
  return `<figure><svg role="img" aria-label="${esc(`Dimension scores: ${summary}`)}" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" xmlns="http://www.w3.org/2000/svg">${bars.join('')}${lines.join('')}</svg>`
    + '<figcaption>Bars: dimension scores (0–1). Dashed lines: pass threshold, warning threshold and safety floor.</figcaption></figure>';
}

const OUTCOME_COLOURS: Record<string, string> = { pass: '#116329', fail: '#a40e26', error: '#6e2a8a', unmeasured: '#6a737d' };

/** The outcomes of the tasks as one stacked bar with a legend. */
export function outcomeChart(counts: Record<string, number>): string {
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const entries = Object.entries(counts).filter(([, count]) => count > 0);
  const summary = entries.map(([outcome, count]) => `${count} ${outcome}`).join(', ') || 'no tasks';
  let offset = 0;
  const segments = entries.map(([outcome, count]) => {
    const width = total ? (count / total) * WIDTH : 0;
    const segment = `<rect x="${offset.toFixed(1)}" y="0" width="${width.toFixed(1)}" height="22" fill="${OUTCOME_COLOURS[outcome] ?? '#6a737d'}"/>`;
    offset += width;
    return segment;
  });
  const legend = entries.map(([outcome, count], position) => `<rect x="${position * 140}" y="32" width="12" height="12" fill="${OUTCOME_COLOURS[outcome] ?? '#6a737d'}"/><text x="${position * 140 + 18}" y="43" font-size="12">${esc(outcome)} ${count} (${score(total ? count / total : 0)})</text>`);
  return `<figure><svg role="img" aria-label="${esc(`Task outcomes: ${summary}`)}" width="${WIDTH}" height="50" viewBox="0 0 ${WIDTH} 50" xmlns="http://www.w3.org/2000/svg">${segments.join('')}${legend.join('')}</svg><figcaption>Task outcomes of the original tasks: ${esc(summary)}.</figcaption></figure>`;
}

/** Named scores (0–1) as horizontal bars, with a text alternative (a suite's mean index per agent). */
export function barChart(rows: ReadonlyArray<{ name: string; value: number | null }>, caption: string): string {
  const height = rows.length * ROW + 8;
  const label = (name: string) => (name.length > 18 ? `${name.slice(0, 17)}…` : name);
  const summary = rows.map((row) => `${row.name} ${row.value === null ? 'not measured' : row.value.toFixed(2)}`).join(', ');
  const bars = rows.map((row, position) => {
    const y = position * ROW + 4;
    const base = `<text x="${LABEL - 8}" y="${y + 15}" text-anchor="end" font-size="13">${esc(label(row.name))}</text><rect x="${LABEL}" y="${y + 3}" width="${BAR}" height="16" fill="#eef1f4"/>`;
    if (row.value === null) return `${base}<text x="${LABEL + 6}" y="${y + 15}" font-size="12" fill="#4a5360">not measured</text>`;
    return `${base}<rect x="${LABEL}" y="${y + 3}" width="${Math.max(1, row.value * BAR).toFixed(1)}" height="16" fill="${colour(row.value)}"/><text x="${(LABEL + row.value * BAR + 6).toFixed(1)}" y="${y + 15}" font-size="12">${row.value.toFixed(2)}</text>`;
  });
  return `<figure><svg role="img" aria-label="${esc(`${caption}: ${summary}`)}" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" xmlns="http://www.w3.org/2000/svg">${bars.join('')}</svg><figcaption>${esc(caption)} (0–1).</figcaption></figure>`;
}
