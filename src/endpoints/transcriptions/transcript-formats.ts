import { isJsonObject, type JsonObject } from '../../formats/json-value.js';

/**
 * The transcription formats a client may ask for (wire-formats.md 4.3). The gateway bills from the
 * provider's reported usage, which only the JSON formats carry, so the three text formats are asked of the
 * provider as JSON and rendered here: `text` from `json`, `srt` and `vtt` from `verbose_json` segments.
 */
export const TRANSCRIPT_FORMATS = ['json', 'verbose_json', 'diarized_json', 'text', 'srt', 'vtt'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

export function isTranscriptFormat(value: string): value is TranscriptFormat {
  return (TRANSCRIPT_FORMATS as readonly string[]).includes(value);
}

/** What the provider is asked for, for each format the client asked for. */
export function upstreamFormat(format: TranscriptFormat): 'json' | 'verbose_json' | 'diarized_json' {
  switch (format) {
    case 'text':
      return 'json';
    case 'srt':
    case 'vtt':
      return 'verbose_json';
    default:
      return format;
  }
}

/** The answer in a text format with its content type; `undefined` for the JSON formats (passed on as they are). */
export function renderTranscript(format: TranscriptFormat, answer: JsonObject): { text: string; contentType: string } | undefined {
  switch (format) {
    case 'text':
      return { text: `${transcriptText(answer)}\n`, contentType: 'text/plain; charset=utf-8' };
    case 'srt':
      return { text: cues(answer).map((cue, index) => `${index + 1}\n${timestamp(cue.start, ',')} --> ${timestamp(cue.end, ',')}\n${cue.text}\n\n`).join(''), contentType: 'application/x-subrip; charset=utf-8' };
    case 'vtt':
      return { text: `WEBVTT\n\n${cues(answer).map((cue) => `${timestamp(cue.start, '.')} --> ${timestamp(cue.end, '.')}\n${cue.text}\n\n`).join('')}`, contentType: 'text/vtt; charset=utf-8' };
    default:
      return undefined;
  }
}

export function transcriptText(answer: JsonObject): string {
  return typeof answer.text === 'string' ? answer.text.trim() : '';
}

interface Cue {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** The segments of a verbose_json answer; without any, one cue over the whole duration. */
function cues(answer: JsonObject): Cue[] {
  const segments = Array.isArray(answer.segments) ? answer.segments : [];
  const fromSegments = segments.filter(isJsonObject).flatMap((segment): Cue[] => {
    const { start, end, text } = segment;
    if (typeof start !== 'number' || typeof end !== 'number' || typeof text !== 'string') return [];
    return [{ start, end, text: text.trim() }];
  });
  if (fromSegments.length > 0) return fromSegments;
  const duration = typeof answer.duration === 'number' ? answer.duration : 0;
  return [{ start: 0, end: duration, text: transcriptText(answer) }];
}

/** `HH:MM:SS,mmm` (SRT) or `HH:MM:SS.mmm` (WebVTT). */
function timestamp(seconds: number, separator: ',' | '.'): string {
  const total = Math.max(0, Math.round(seconds * 1000));
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor(total / 60_000) % 60;
  const secs = Math.floor(total / 1000) % 60;
  return `${pad(hours)}:${pad(minutes)}:${pad(secs)}${separator}${pad(total % 1000, 3)}`;
}
