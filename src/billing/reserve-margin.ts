/**
 * The gateway counts tokens with one tokenizer (o200k_base) while providers count with their own, and
 * Anthropic's counts run higher on some text. Every token count the gateway makes itself — the input of a
 * reserve, the output it counts when a provider reports no usage — is raised by a quarter so that it stays
 * an upper bound of what the provider will charge.
 */
const TOKENIZER_MARGIN_NUMERATOR = 5;
const TOKENIZER_MARGIN_DENOMINATOR = 4;

/** `tokens` as counted here, raised to an upper bound of any provider's count (a whole number). */
export function withTokenizerMargin(tokens: number): number {
  return Math.ceil((tokens * TOKENIZER_MARGIN_NUMERATOR) / TOKENIZER_MARGIN_DENOMINATOR);
}
