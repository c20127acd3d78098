import type { Detector, PiiSpan } from '../pii-kinds.js';

/**
 * Credentials pasted into a prompt: API keys of the common services by their published prefixes (OpenAI
 * and Anthropic `sk-…`, this gateway's `sk-gw-…`, GitHub `ghp_…`/`github_pat_…`, GitLab `glpat-…`, Slack
 * `xox?-…`, Stripe `sk_live_…`/`rk_live_…`, AWS access key ids `AKIA…`, Google `AIza…`), JSON Web Tokens, and the token
 * after `Bearer`. The lengths keep short lookalikes (`sk-learn`, `task-42`) out; a UUID or a hash carries
 * no such prefix and is left alone.
 */
const PREFIXED =
  /(?<![\w-])(?:sk-[A-Za-z0-9][A-Za-z0-9_-]{19,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})(?![\w-])/g;
/** A bearer token (RFC 6750's b64token): long, with a digit and a letter, so `Bearer token` stays. */
const BEARER = /\bBearer\s+([A-Za-z0-9._~+/-]{16,}=*)/g;

export const secretDetector: Detector = {
  kind: 'SECRET',
  find(text) {
    const spans: PiiSpan[] = [];
    PREFIXED.lastIndex = 0;
    for (let match = PREFIXED.exec(text); match; match = PREFIXED.exec(text)) {
      spans.push({ kind: 'SECRET', start: match.index, end: match.index + match[0].length });
    }
    BEARER.lastIndex = 0;
    for (let match = BEARER.exec(text); match; match = BEARER.exec(text)) {
      const token = match[1]!;
      if (!/\d/.test(token) || !/[A-Za-z]/.test(token)) continue;
      const start = match.index + match[0].length - token.length;
      if (!spans.some((span) => span.start <= start && start < span.end)) spans.push({ kind: 'SECRET', start, end: start + token.length });
    }
    return spans;
  },
};
