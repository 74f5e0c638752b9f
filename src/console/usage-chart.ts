import type { UsageSummary } from '../usage/usage-store.js';
import { html, type SafeHtml } from './html.js';

const WIDTH = 640;
const HEIGHT = 180;
const PLOT = { left: 36, right: 8, top: 10, bottom: 24 };

/** Requests per bin as bars (errors stacked in red), drawn server-side as inline SVG: no script, no CDN. */
export function usageChart(series: UsageSummary['series']): SafeHtml {
  const peak = Math.max(1, ...series.map((bar) => bar.requests));
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const step = plotWidth / Math.max(1, series.length);
  const barWidth = Math.max(1, step * 0.75);
  const y = (value: number) => PLOT.top + plotHeight - (value / peak) * plotHeight;
  const bars = series.map((bar, index) => {
    const x = (PLOT.left + index * step + (step - barWidth) / 2).toFixed(1);
    const ok = bar.requests - bar.errors;
    return html`<g><title>${bar.bin}: ${bar.requests} requests, ${bar.errors} errors</title>${ok > 0 ? html`<rect class="bar-ok" x="${x}" y="${y(ok).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(y(0) - y(ok)).toFixed(1)}"/>` : ''}${bar.errors > 0 ? html`<rect class="bar-error" x="${x}" y="${y(bar.requests).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(y(ok) - y(bar.requests)).toFixed(1)}"/>` : ''}</g>`;
  });
  const first = series[0]?.bin ?? '';
  const last = series[series.length - 1]?.bin ?? '';
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Requests over time, peak ${peak} per bar">
  <line class="axis" x1="${PLOT.left}" y1="${y(0)}" x2="${WIDTH - PLOT.right}" y2="${y(0)}"/>
  <line class="grid" x1="${PLOT.left}" y1="${PLOT.top}" x2="${WIDTH - PLOT.right}" y2="${PLOT.top}"/>
  <text class="tick" x="${PLOT.left - 6}" y="${PLOT.top + 4}" text-anchor="end">${peak}</text>
  <text class="tick" x="${PLOT.left - 6}" y="${y(0) + 4}" text-anchor="end">0</text>
  ${bars}
  <text class="tick" x="${PLOT.left}" y="${HEIGHT - 6}">${binLabel(first)}</text>
  <text class="tick" x="${WIDTH - PLOT.right}" y="${HEIGHT - 6}" text-anchor="end">${binLabel(last)} UTC</text>
</svg>`;
}

/** `2026-05-01T10:42` → `05-01 10:42`; `2026-05-01T10` → `05-01 10:00`; `2026-05-01` → `05-01`. */
function binLabel(bin: string): string {
  const [day, time] = bin.split('T');
  const monthDay = day.slice(5);
  if (time === undefined) return monthDay;
  return `${monthDay} ${time.length === 2 ? `${time}:00` : time}`;
}
