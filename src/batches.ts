/**
 * Runs `fn` over `items`, `size` at a time: a bounded burst of deletes (resources, or files in
 * a store such as S3, which throttles a burst of thousands).
 */
export async function inBatches<T>(
  items: readonly T[],
  size: number,
  fn: (item: T) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}
