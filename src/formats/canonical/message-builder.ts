import type { CanonicalMessage, ContentPart, Role } from './canonical-request.js';

/**
 * Collects canonical messages, merging consecutive messages of the same role: formats split one turn
 * differently (responses sends an assistant turn as separate message and function_call items; chat sends
 * one tool message per result), and merged turns render correctly in every target.
 */
export class MessageBuilder {
  private readonly messages: Array<{ role: Role; content: ContentPart[] }> = [];

  add(role: Role, parts: readonly ContentPart[]): void {
    if (parts.length === 0) return;
    const last = this.messages[this.messages.length - 1];
    if (last && last.role === role) last.content.push(...parts);
    else this.messages.push({ role, content: [...parts] });
  }

  build(): CanonicalMessage[] {
    return this.messages;
  }
}
