/**
 * The chart of the spread runs (bench/results/latest-spread.svg): per workload, one bar per store
 * count (req/s) with its ceiling spread the same way as a dark tick on the bar's track. Each
 * workload has its own scale (reads answer ten times faster than writes), so a bar's length reads
 * as its share of that workload's highest figure; the figures are written beside the bars.
 */
import type { LoadResult } from './load.js';

interface ChartRow {
  workload: string;
  stores: number;
  rps: number;
  ceiling: LoadResult | null;
}

const COLOURS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759'];
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function spreadChart(rows: ChartRow[], caption: string): string {
  const workloads = [...new Set(rows.map((r) => r.workload))];
  const counts = [...new Set(rows.map((r) => r.stores))].sort((a, b) => a - b);
  const [left, track, bar, gap, top] = [150, 480, 16, 18, 56];
  const groupHeight = counts.length * (bar + 4) + gap;
  const height = top + workloads.length * groupHeight + 40;
  const width = left + track + 260;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="10" y="20" font-size="15" font-weight="bold">Writes and reads spread over stores: req/s, ceiling as a tick (each workload its own scale)</text>`,
    ...counts.map((n, i) => `<rect x="${10 + i * 150}" y="32" width="12" height="12" fill="${COLOURS[i % COLOURS.length]}"/><text x="${26 + i * 150}" y="43">${n === 1 ? 'one store' : `${n} stores`}</text>`),
    `<rect x="${10 + counts.length * 150}" y="32" width="3" height="12" fill="#222"/><text x="${18 + counts.length * 150}" y="43">ceiling, spread the same way</text>`,
  ];
  workloads.forEach((workload, w) => {
    const y0 = top + w * groupHeight;
    const own = rows.filter((r) => r.workload === workload);
    const scale = Math.max(1, ...own.flatMap((r) => [r.rps, r.ceiling?.rps ?? 0]));
    parts.push(`<text x="${left - 8}" y="${y0 + bar + 2}" text-anchor="end" font-weight="bold">${escape(workload)}</text>`);
    counts.forEach((n, i) => {
      const row = own.find((r) => r.stores === n);
      if (!row) return;
      const y = y0 + i * (bar + 4);
      const length = Math.round((row.rps / scale) * track);
      parts.push(`<rect x="${left}" y="${y}" width="${track}" height="${bar}" fill="#eee"/>`);
      parts.push(`<rect x="${left}" y="${y}" width="${length}" height="${bar}" fill="${COLOURS[i % COLOURS.length]}"/>`);
      if (row.ceiling) parts.push(`<rect x="${left + Math.round((row.ceiling.rps / scale) * track) - 1}" y="${y - 2}" width="3" height="${bar + 4}" fill="#222"/>`);
      const share = row.ceiling && row.ceiling.rps > 0 ? ` (${Math.round((row.rps / row.ceiling.rps) * 100)}% of ${row.ceiling.rps})` : '';
      parts.push(`<text x="${left + track + 8}" y="${y + bar - 4}">${row.rps} req/s${share}</text>`);
    });
  });
  parts.push(`<text x="10" y="${height - 14}" font-size="10" fill="#555">${escape(caption)}</text>`, '</svg>');
  return `${parts.join('\n')}\n`;
}
