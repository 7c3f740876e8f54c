/**
 * The run's seven dimension scores as an SVG bar chart, and the index against the pass (0.8), warning (0.5)
 * and safety-floor (0.49) lines. Plain SVG with a text alternative; no external assets.
 */
const DIMENSIONS = ['safety', 'security', 'reliability', 'fairness', 'explainability', 'privacy', 'resilience'];
const WIDTH = 520;
const LABEL = 120;
const BAR = WIDTH - LABEL - 60;
const ROW = 26;

function colour(value: number): string {
  return value >= 0.8 ? '#116329' : value >= 0.5 ? '#7a4d00' : '#a40e26';
}

export function DimensionChart(props: { dimensions: Record<string, number | null> | null; index: number | null }) {
  const dimensions = props.dimensions ?? {};
  const rows = [...DIMENSIONS.map((name) => ({ name, value: dimensions[name] ?? null })), { name: 'index', value: props.index }];
  const height = rows.length * ROW + 30;
  const x = (value: number) => LABEL + value * BAR;
  const summary = rows.map((row) => `${row.name} ${row.value === null ? 'not measured' : row.value.toFixed(2)}`).join(', ');
  return (
    <figure>
      <svg role="img" aria-label={`Dimension scores: ${summary}`} width={WIDTH} height={height} viewBox={`0 0 ${WIDTH} ${height}`}>
        {rows.map((row, position) => {
          const y = position * ROW + 4;
          return (
            <g>
              <text x={LABEL - 8} y={y + 15} text-anchor="end" font-size="13" font-weight={row.name === 'index' ? '700' : '400'}>{row.name}</text>
              <rect x={LABEL} y={y + 3} width={BAR} height={16} fill="#eef1f4" />
              {row.value === null
                ? <text x={LABEL + 6} y={y + 15} font-size="12" fill="#4a5360">not measured</text>
                : <rect x={LABEL} y={y + 3} width={Math.max(1, row.value * BAR)} height={16} fill={colour(row.value)} />}
              {row.value !== null && <text x={x(row.value) + 6} y={y + 15} font-size="12">{row.value.toFixed(2)}</text>}
            </g>
          );
        })}
        {[{ at: 0.8, label: 'pass 0.8' }, { at: 0.5, label: 'warn 0.5' }, { at: 0.49, label: 'floor 0.49' }].map((line, position) => (
          <g>
            <line x1={x(line.at)} x2={x(line.at)} y1={0} y2={rows.length * ROW + 6} stroke="#1b1f24" stroke-dasharray={position === 2 ? '2 2' : '5 3'} />
            <text x={x(line.at) + (position === 2 ? -4 : 4)} y={rows.length * ROW + 22} font-size="11" text-anchor={position === 2 ? 'end' : 'start'}>{line.label}</text>
          </g>
        ))}
      </svg>
      <figcaption class="muted">Bars: dimension scores (0–1). Dashed lines: pass threshold, warning threshold and safety floor.</figcaption>
    </figure>
  );
}
