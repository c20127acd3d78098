/**
 * What a model produces, and so how it is priced and which limits apply to it (a key may have a limit per
 * category). The catalog declares each model's category; reservations and keys' limits record it, so the
 * list is shared by the catalog, the ledger and access, and lives here rather than in any one of them.
 */
export const MODEL_CATEGORIES = ['text', 'image', 'embeddings', 'speech', 'video'] as const;

export type ModelCategory = (typeof MODEL_CATEGORIES)[number];

/**
 * The types spend is reported by (the spend report's and the audit's `type`): a model's category, and
 * `pii` for PII masking fees, which a masked request pays on top of its model's prices.
 */
export const SPEND_TYPES = [...MODEL_CATEGORIES, 'pii'] as const;

export type SpendType = (typeof SPEND_TYPES)[number];
