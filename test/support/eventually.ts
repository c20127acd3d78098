/**
 * Retries an assertion until it passes or the time is up, then throws its last error. For what follows
 * the log asynchronously: read models, other instances' caches, and `readAll`, which shows a committed
 * event once every older transaction has ended (the xmin horizon).
 */
export async function eventually<Value>(assertion: () => Promise<Value>, timeoutMs = 10_000, intervalMs = 50): Promise<Value> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
