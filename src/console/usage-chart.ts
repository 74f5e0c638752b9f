import type { UsageSummary } from '../usage/usage-store.js';
import { html, type SafeHtml } from './html.js';

/** The bars' own coordinates: the plot stretches them to the height the stylesheet gives it (phone or laptop), text stays HTML at its size. */
const WIDTH = 600;
const HEIGHT = 100;

/** Requests per bin as bars (errors stacked in red), drawn server-side as inline SVG: no script, no CDN. */
export function usageChart(series: UsageSummary['series']): SafeHtml {
  const peak = Math.max(1, ...series.map((bar) => bar.requests));
  const step = WIDTH / Math.max(1, series.length);
  const barWidth = Math.max(0.5, step * 0.75);
  const y = (value: number) => HEIGHT - (value / peak) * HEIGHT;
  const bars = series.map((bar, index) => {
    const x = (index * step + (step - barWidth) / 2).toFixed(2);
    const ok = bar.requests - bar.errors;
    return html`<g><title>${bar.bin}: ${bar.requests} requests, ${bar.errors} errors</title>${ok > 0 ? html`<rect class="bar-ok" x="${x}" y="${y(ok).toFixed(2)}" width="${barWidth.toFixed(2)}" height="${(HEIGHT - y(ok)).toFixed(2)}"/>` : ''}${bar.errors > 0 ? html`<rect class="bar-error" x="${x}" y="${y(bar.requests).toFixed(2)}" width="${barWidth.toFixed(2)}" height="${(y(ok) - y(bar.requests)).toFixed(2)}"/>` : ''}</g>`;
  });
  const first = series[0]?.bin ?? '';
  const last = series[series.length - 1]?.bin ?? '';
  return html`<figure class="chart" role="img" aria-label="Requests over time, peak ${peak} per bar">
  <div class="chart-y" aria-hidden="true"><span>${peak}</span><span>0</span></div>
  <svg class="chart-plot" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none">
    <line class="grid" x1="0" y1="0.5" x2="${WIDTH}" y2="0.5" vector-effect="non-scaling-stroke"/>
    ${bars}
    <line class="axis" x1="0" y1="${HEIGHT}" x2="${WIDTH}" y2="${HEIGHT}" vector-effect="non-scaling-stroke"/>
  </svg>
  <div class="chart-x" aria-hidden="true"><span>${binLabel(first)}</span><span>${binLabel(last)} UTC</span></div>
</figure>`;
}

/** `2026-05-01T10:42` → `05-01 10:42`; `2026-05-01T10` → `05-01 10:00`; `2026-05-01` → `05-01`. */
function binLabel(bin: string): string {
  const [day, time] = bin.split('T');
  const monthDay = day.slice(5);
  if (time === undefined) return monthDay;
  return `${monthDay} ${time.length === 2 ? `${time}:00` : time}`;
}
