/**
 * A few chart shapes as plain SVG strings, for `npm run bench:report`. No
 * dependency and no randomness: the same numbers give the same bytes, so a
 * chart can be checked against the results it was drawn from.
 */

const WIDTH = 720;
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';
/** Colours that stay apart for the usual kinds of colour blindness (Okabe–Ito), engram first. */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000'];

export interface Series {
  name: string;
  /** [x, y] points, in the order to draw them; a missing point breaks nothing, it is just not there. */
  points: Array<[number, number]>;
  colour?: string;
  /** Drawn heavier: the system the chart is about. */
  emphasis?: boolean;
}

export interface LineChart {
  title: string;
  /** One line per entry, under the title: the command, the machine, the results file. */
  subtitle: string[];
  xLabel: string;
  yLabel: string;
  series: Series[];
  /** Both axes are logarithmic (sizes and latencies span decades). */
  xTicks: number[];
  yTicks: number[];
  formatX: (value: number) => string;
  formatY: (value: number) => string;
  /** A horizontal line with a label, e.g. a target. */
  rule?: { y: number; label: string };
}

export interface BarGroup {
  label: string;
  bars: Array<{ name: string; value: number }>;
}

export interface BarChart {
  title: string;
  /** One line per entry, under the title: the command, the machine, the results file. */
  subtitle: string[];
  unit: string;
  groups: BarGroup[];
  /** Bar names in legend order, each with its colour. */
  legend: string[];
  max: number;
  ticks: number[];
  format: (value: number) => string;
  rule?: { value: number; label: string };
}

export interface StackedBars {
  title: string;
  /** One line per entry, under the title: the command, the machine, the results file. */
  subtitle: string[];
  unit: string;
  /** One horizontal bar per row, its parts laid end to end. */
  rows: Array<{ label: string; parts: Array<{ name: string; value: number }> }>;
  legend: string[];
  max: number;
  ticks: number[];
  format: (value: number) => string;
  rule?: { value: number; label: string };
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Two decimals at most, no trailing zeros: stable across runs and platforms. */
function n(value: number): string {
  return String(Math.round(value * 100) / 100);
}

function text(x: number, y: number, content: string, attributes = ''): string {
  return `<text x="${n(x)}" y="${n(y)}" ${attributes}>${escape(content)}</text>`;
}

/** Where the plot starts below the title and its subtitle lines. */
function plotTop(subtitle: string[]): number {
  return 44 + subtitle.length * 16;
}

function frame(height: number, title: string, subtitle: string[], body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" ${FONT} font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    text(16, 24, title, 'font-size="15" font-weight="600" fill="#111111"'),
    ...subtitle.map((line, i) => text(16, 42 + i * 16, line, 'fill="#555555"')),
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

function legendItems(names: string[], colourOf: (name: string, index: number) => string, x: number, y: number, width: number): { svg: string[]; height: number } {
  const svg: string[] = [];
  let cx = x;
  let cy = y;
  names.forEach((name, index) => {
    const itemWidth = 30 + name.length * 7;
    if (cx + itemWidth > x + width) {
      cx = x;
      cy += 18;
    }
    svg.push(`<rect x="${n(cx)}" y="${n(cy - 9)}" width="12" height="10" fill="${colourOf(name, index)}"/>`);
    svg.push(text(cx + 16, cy, name, 'fill="#333333"'));
    cx += itemWidth;
  });
  return { svg, height: cy - y + 18 };
}

export function lineChart(chart: LineChart): string {
  const left = 70;
  const right = WIDTH - 40;
  const top = plotTop(chart.subtitle) + 6;
  const bottom = top + 270;
  const log = Math.log10;
  const [x0, x1] = [log(chart.xTicks[0]!), log(chart.xTicks.at(-1)!)];
  const [y0, y1] = [log(chart.yTicks[0]!), log(chart.yTicks.at(-1)!)];
  const px = (x: number) => left + ((log(x) - x0) / (x1 - x0)) * (right - left);
  const py = (y: number) => bottom - ((log(Math.min(Math.max(y, chart.yTicks[0]!), chart.yTicks.at(-1)!)) - y0) / (y1 - y0)) * (bottom - top);
  const body: string[] = [];
  for (const tick of chart.yTicks) {
    body.push(`<line x1="${left}" y1="${n(py(tick))}" x2="${right}" y2="${n(py(tick))}" stroke="#e5e5e5"/>`);
    body.push(text(left - 6, py(tick) + 4, chart.formatY(tick), 'text-anchor="end" fill="#555555"'));
  }
  for (const tick of chart.xTicks) {
    body.push(`<line x1="${n(px(tick))}" y1="${top}" x2="${n(px(tick))}" y2="${bottom}" stroke="#f0f0f0"/>`);
    body.push(text(px(tick), bottom + 16, chart.formatX(tick), 'text-anchor="middle" fill="#555555"'));
  }
  body.push(`<line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="#999999"/>`);
  body.push(text((left + right) / 2, bottom + 34, chart.xLabel, 'text-anchor="middle" fill="#333333"'));
  body.push(text(18, (top + bottom) / 2, chart.yLabel, `text-anchor="middle" fill="#333333" transform="rotate(-90 18 ${(top + bottom) / 2})"`));
  if (chart.rule) {
    const y = py(chart.rule.y);
    body.push(`<line x1="${left}" y1="${n(y)}" x2="${right}" y2="${n(y)}" stroke="#D55E00" stroke-dasharray="5 4"/>`);
    body.push(text(right - 4, y - 5, chart.rule.label, 'text-anchor="end" fill="#D55E00"'));
  }
  const colourOf = (series: Series, index: number) => series.colour ?? PALETTE[index % PALETTE.length]!;
  chart.series.forEach((series, index) => {
    const colour = colourOf(series, index);
    const width = series.emphasis ? 3 : 1.6;
    const path = series.points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${n(px(x))} ${n(py(y))}`).join(' ');
    if (series.points.length > 1) body.push(`<path d="${path}" fill="none" stroke="${colour}" stroke-width="${width}"/>`);
    for (const [x, y] of series.points) body.push(`<circle cx="${n(px(x))}" cy="${n(py(y))}" r="${series.emphasis ? 4 : 3}" fill="${colour}"/>`);
  });
  const legend = legendItems(
    chart.series.map((s) => s.name),
    (_name, index) => colourOf(chart.series[index]!, index),
    left,
    bottom + 58,
    right - left,
  );
  body.push(...legend.svg);
  return frame(bottom + 58 + legend.height, chart.title, chart.subtitle, body);
}

export function barChart(chart: BarChart): string {
  const left = 70;
  const right = WIDTH - 20;
  const top = plotTop(chart.subtitle) + 10;
  const bottom = top + 240;
  const py = (value: number) => bottom - (Math.min(value, chart.max) / chart.max) * (bottom - top);
  const body: string[] = [];
  for (const tick of chart.ticks) {
    body.push(`<line x1="${left}" y1="${n(py(tick))}" x2="${right}" y2="${n(py(tick))}" stroke="#e5e5e5"/>`);
    body.push(text(left - 6, py(tick) + 4, chart.format(tick), 'text-anchor="end" fill="#555555"'));
  }
  body.push(text(18, (top + bottom) / 2, chart.unit, `text-anchor="middle" fill="#333333" transform="rotate(-90 18 ${(top + bottom) / 2})"`));
  const colour = (name: string) => PALETTE[chart.legend.indexOf(name) % PALETTE.length]!;
  const groupWidth = (right - left) / chart.groups.length;
  chart.groups.forEach((group, g) => {
    const inner = groupWidth * 0.8;
    const barWidth = inner / group.bars.length;
    const start = left + g * groupWidth + (groupWidth - inner) / 2;
    group.bars.forEach((bar, b) => {
      const x = start + b * barWidth;
      const y = py(bar.value);
      body.push(`<rect x="${n(x + 1)}" y="${n(y)}" width="${n(barWidth - 2)}" height="${n(bottom - y)}" fill="${colour(bar.name)}"><title>${escape(`${group.label}, ${bar.name}: ${chart.format(bar.value)}`)}</title></rect>`);
      body.push(text(x + barWidth / 2, y - 4, chart.format(bar.value), 'text-anchor="middle" font-size="10" fill="#333333"'));
    });
    body.push(text(left + g * groupWidth + groupWidth / 2, bottom + 16, group.label, 'text-anchor="middle" fill="#333333"'));
  });
  body.push(`<line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="#999999"/>`);
  if (chart.rule) {
    const y = py(chart.rule.value);
    body.push(`<line x1="${left}" y1="${n(y)}" x2="${right}" y2="${n(y)}" stroke="#D55E00" stroke-dasharray="5 4"/>`);
    body.push(text(right - 4, y - 5, chart.rule.label, 'text-anchor="end" fill="#D55E00"'));
  }
  const legend = legendItems(chart.legend, (name) => colour(name), left, bottom + 40, right - left);
  body.push(...legend.svg);
  return frame(bottom + 40 + legend.height, chart.title, chart.subtitle, body);
}

export function stackedBars(chart: StackedBars): string {
  const left = 200;
  const right = WIDTH - 60;
  const top = plotTop(chart.subtitle) + 14;
  const rowHeight = 30;
  const bottom = top + chart.rows.length * rowHeight;
  const px = (value: number) => left + (Math.min(value, chart.max) / chart.max) * (right - left);
  const colour = (name: string) => PALETTE[chart.legend.indexOf(name) % PALETTE.length]!;
  const body: string[] = [];
  for (const tick of chart.ticks) {
    body.push(`<line x1="${n(px(tick))}" y1="${top - 6}" x2="${n(px(tick))}" y2="${bottom}" stroke="#e5e5e5"/>`);
    body.push(text(px(tick), bottom + 16, chart.format(tick), 'text-anchor="middle" fill="#555555"'));
  }
  body.push(text((left + right) / 2, bottom + 34, chart.unit, 'text-anchor="middle" fill="#333333"'));
  chart.rows.forEach((row, r) => {
    const y = top + r * rowHeight;
    body.push(text(left - 8, y + 15, row.label, 'text-anchor="end" fill="#333333"'));
    let at = 0;
    for (const part of row.parts) {
      const x = px(at);
      const width = px(at + part.value) - x;
      body.push(`<rect x="${n(x)}" y="${n(y + 3)}" width="${n(Math.max(width, 0))}" height="${rowHeight - 8}" fill="${colour(part.name)}"><title>${escape(`${row.label}, ${part.name}: ${chart.format(part.value)}`)}</title></rect>`);
      at += part.value;
    }
    body.push(text(px(at) + 4, y + 15, chart.format(at), 'fill="#333333"'));
  });
  if (chart.rule) {
    const x = px(chart.rule.value);
    body.push(`<line x1="${n(x)}" y1="${top - 6}" x2="${n(x)}" y2="${bottom}" stroke="#D55E00" stroke-dasharray="5 4"/>`);
    body.push(text(x - 4, top - 8, chart.rule.label, 'text-anchor="end" fill="#D55E00"'));
  }
  const legend = legendItems(chart.legend, (name) => colour(name), 16, bottom + 58, WIDTH - 32);
  body.push(...legend.svg);
  return frame(bottom + 58 + legend.height, chart.title, chart.subtitle, body);
}
