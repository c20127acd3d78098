import type { RequestLogRecord, UsageRecord } from '../admin-records.js';

/** How the request log writes times, durations, usage and outcomes. Times are UTC, as the API's. */
export const formatTime = (iso: string | null) => (iso === null ? '—' : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`);

export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.floor((ms % 60_000) / 1000)} s`;
}

export const USAGE_LABELS: Record<Exclude<keyof UsageRecord, 'counted'>, string> = {
  input_tokens: 'in',
  cached_input_tokens: 'cached',
  cache_write_tokens: 'cache write',
  output_tokens: 'out',
  reasoning_tokens: 'reasoning',
  images: 'images',
  audio_seconds: 's audio',
  video_seconds: 's video',
};

/** The kinds the request used, `12 in, 7 out`; `all` writes the zeros the provider reported too. */
export function formatUsage(usage: UsageRecord | null | undefined, all = false): string {
  if (!usage) return '—';
  const parts = Object.entries(USAGE_LABELS).flatMap(([field, label]) => {
    const count = usage[field as keyof typeof USAGE_LABELS];
    return count === undefined || (count === 0 && !all) ? [] : [`${count.toLocaleString('en-US')} ${label}`];
  });
  const text = parts.length > 0 ? parts.join(', ') : 'none';
  return usage.counted ? `${text} (counted by the gateway)` : text;
}

export const STATUS_NAMES: Record<RequestLogRecord['status'] | 'error', string> = {
  open: 'open (running)',
  settled: 'settled',
  cut_off: 'cut off',
  released: 'released',
  expired: 'expired',
  error: 'ended in an error',
};

export function formatOutcome(request: Pick<RequestLogRecord, 'status' | 'release_reason'>): string {
  const name = STATUS_NAMES[request.status];
  return request.release_reason ? `${name} (${request.release_reason.replace('_', ' ')})` : name;
}

/** The endpoints a request log row can name, as the admin API writes them. */
export const ENDPOINTS = ['chat', 'messages', 'responses', 'embeddings', 'images', 'transcriptions'] as const;
