// The bench's report: a table with the ratios to the reference, the targets of the
// performance issue checked against them, the JSON of the whole run, and an SVG chart of
// the latency distributions.
import type { Percentiles } from './wrk.ts';

/** One line of the table. */
export interface Row {
  name: string;
  value: string;
  reference?: string;
  ratio?: string;
}

/** A target of the issue and whether this run met it. */
export interface Target {
  name: string;
  measured: string;
  met: boolean;
}

/** A latency distribution drawn in the chart. */
export interface Series {
  name: string;
  percentiles: Percentiles;
}

/** The table and targets as Markdown, which is also what the terminal shows. */
export function markdown(rows: Row[], targets: Target[]): string {
  const lines = [
    '| measurement | Switchboard | reference | ratio |',
    '|---|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${r.value} | ${r.reference ?? ''} | ${r.ratio ?? ''} |`),
    '',
    '| target | measured | met |',
    '|---|---:|:---:|',
    ...targets.map((t) => `| ${t.name} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`),
  ];
  return lines.join('\n');
}

const COLORS = ['#1f6feb', '#8b949e', '#2da44e', '#bf8700', '#cf222e', '#8250df', '#0a7f7f'];

/**
 * An SVG chart: x is the percentile on a "nines" scale (50, 90, 99, 99.9), y the
 * latency in ms on a log scale, one line per series.
 */
export function latencyChart(title: string, series: Series[]): string {
  const width = 880;
  const height = 480;
  const left = 70;
  const right = 250;
  const top = 40;
  const bottom = 50;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const xOf = (p: number) => left + (Math.log10(100 / (100 - p)) / 3) * plotW;
  const all = series.flatMap((s) => s.percentiles.map(([, ms]) => ms)).filter((ms) => ms > 0);
  const lo = Math.floor(Math.log10(Math.max(0.05, Math.min(...all))));
  const hi = Math.ceil(Math.log10(Math.max(...all, 1)));
  const yOf = (ms: number) =>
    top + plotH - ((Math.log10(Math.max(ms, 10 ** lo)) - lo) / (hi - lo)) * plotH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${left}" y="24" font-size="15" font-weight="bold">${title}</text>`,
  ];
  for (const p of [0, 50, 90, 99, 99.9]) {
    const x = xOf(p).toFixed(1);
    out.push(`<line x1="${x}" y1="${top}" x2="${x}" y2="${top + plotH}" stroke="#ddd"/>`);
    out.push(`<text x="${x}" y="${top + plotH + 18}" text-anchor="middle">p${p}</text>`);
  }
  for (let e = lo; e <= hi; e++) {
    const y = yOf(10 ** e).toFixed(1);
    out.push(`<line x1="${left}" y1="${y}" x2="${left + plotW}" y2="${y}" stroke="#ddd"/>`);
    out.push(`<text x="${left - 8}" y="${y}" text-anchor="end" dy="4">${10 ** e} ms</text>`);
  }
  out.push(
    `<text x="${left + plotW / 2}" y="${height - 10}" text-anchor="middle">percentile</text>`,
  );
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const points = s.percentiles
      .filter(([p]) => p <= 99.9)
      .map(([p, ms]) => `${xOf(p).toFixed(1)},${yOf(ms).toFixed(1)}`)
      .join(' ');
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${points}"/>`);
    const y = top + 10 + i * 20;
    out.push(
      `<line x1="${left + plotW + 16}" y1="${y}" x2="${left + plotW + 36}" y2="${y}" stroke="${color}" stroke-width="3"/>`,
    );
    out.push(`<text x="${left + plotW + 42}" y="${y + 4}">${s.name}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}

/** A number with a unit, rounded for the table. */
export function fmt(value: number, unit: string, digits = 0): string {
  return `${value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })}${unit}`;
}
