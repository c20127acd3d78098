/**
 * Retries an assertion until it passes or the time is up, then throws its last error. For what follows
 * the log asynchronously: read models, other instances' caches, and `readAll`, which shows a committed
 * event once every older transaction has ended (the xmin horizon).
 */
export async function eventually(assertion: () => Promise<unknown>, timeoutMs = 10_000, intervalMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertion();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
